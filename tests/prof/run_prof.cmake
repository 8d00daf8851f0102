# Runs tessel-prof once and checks what it did (ctest runs this with cmake -P).
#   -DPROF=<tessel-prof>  -DARGS="gemm --layout xy"  (split like a shell would)
#   -DMODE=exit -DEXIT_CODE=1 -DREGEX="--layout: xy"   the exit status and a match in
#                                                       stdout + stderr
#   -DMODE=gpu_or_no_device   either no GPU (exit 2, "no CUDA device found") or a GPU that
#                             ran it (exit 0, a PASS row): the same test on both machines
separate_arguments(args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND "${PROF}" ${args}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
message("tessel-prof ${ARGS} -> exit ${rc}\n${all}")

if(MODE STREQUAL "exit")
  if(NOT rc EQUAL EXIT_CODE)
    message(FATAL_ERROR "expected exit status ${EXIT_CODE}, found ${rc}")
  endif()
  if(NOT all MATCHES "${REGEX}")
    message(FATAL_ERROR "expected the output to match '${REGEX}'")
  endif()
elseif(MODE STREQUAL "gpu_or_no_device")
  if(rc EQUAL 2)
    set(no_device "tessel-prof: no CUDA device found \\(.*\\); tessel-prof measures kernels on a GPU")
    if(NOT err MATCHES "${no_device}")
      message(FATAL_ERROR "exit 2 without the no-device message on stderr")
    endif()
  elseif(rc EQUAL 0)
    if(NOT out MATCHES "PASS")
      message(FATAL_ERROR "exit 0 without a PASS row")
    endif()
  else()
    message(FATAL_ERROR "expected exit 2 (no GPU) or 0 (a PASS row), found ${rc}")
  endif()
else()
  message(FATAL_ERROR
          "run_prof.cmake: unknown MODE '${MODE}' (exit or gpu_or_no_device)")
endif()
