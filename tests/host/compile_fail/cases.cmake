# compile-fail cases: tessel_compile_fail_test(NAME SOURCE REGEX)
