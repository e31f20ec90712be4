"""dnnc-opt: parse a .mlir file, run a pass pipeline, print the result."""

from xdsl.xdsl_opt_main import xDSLOptMain

from dnnc.registry import get_all_dialects, get_all_passes


class DnncOptMain(xDSLOptMain):
    def register_all_dialects(self) -> None:
        for name, factory in get_all_dialects().items():
            self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        super().register_all_passes()
        for name, factory in get_all_passes().items():
            self.register_pass(name, factory)


def main() -> None:
    DnncOptMain().run()


if __name__ == "__main__":
    main()
