// RUN: not dnnc-opt %s -p cse,no-such-pass 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not dnnc-opt %s -p 'cse{no-such-option=1}' 2>&1 | filecheck %s --check-prefix=OPTION
// RUN: not dnnc-opt %s -p 'cse{' 2>&1 | filecheck %s --check-prefix=MALFORMED
// RUN: not dnnc-opt %s --remarks=no-such-pass 2>&1 | filecheck %s --check-prefix=REMARKS

// UNKNOWN-NOT: Traceback
// UNKNOWN:     error: unknown pass 'no-such-pass' (known: canonicalize, {{.*}}cse, dce, {{.*}}dnn-optimize,
// OPTION-NOT:  Traceback
// OPTION:      error: invalid options for pass 'cse': Provided arguments ["no_such_option"] not found
// MALFORMED-NOT: Traceback
// MALFORMED:   error: malformed pass pipeline: Expected argument name here
// MALFORMED-NEXT: cse{
// MALFORMED-NEXT: {{^    \^$}}
// REMARKS-NOT: Traceback
// REMARKS:     error: unknown pass 'no-such-pass' in --remarks
func.func @empty() {
  func.return
}
