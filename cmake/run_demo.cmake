# The README's main job (cmake --workflow --preset demo): tessel-prof's default GEMM suite
# against cuBLAS. Without a GPU it says so and shows the layout calculator on seed 004's
# swizzled tile instead, so the command still teaches something on any machine.
#   cmake -DPROF=path/to/tessel-prof -DLAYOUT=path/to/tessel-layout -P run_demo.cmake
if(EXISTS "${PROF}")
  execute_process(COMMAND ${PROF} gemm RESULT_VARIABLE prof_status)
  if(prof_status EQUAL 0)
    return()
  elseif(NOT prof_status EQUAL 2)
    message(FATAL_ERROR "tessel-prof gemm failed (exit ${prof_status})")
  endif()
  message(STATUS "No GPU here: showing the layout calculator instead (tessel-prof needs a CUDA device)")
else()
  message(STATUS "tessel-prof was not built (no GPU or no CUDA compiler here): showing the layout calculator instead")
endif()
set(tile "composition(Sw<3,3,3>, (8,64):(64,1))")
foreach(args IN ITEMS "eval;${tile}" "show;${tile}" "banks;--preset;ldmatrix-x4;--layout;(8,64):(64,1)"
                      "banks;--preset;ldmatrix-x4;--layout;${tile}")
  execute_process(COMMAND ${LAYOUT} ${args} RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "tessel-layout ${args} failed (exit ${status})")
  endif()
endforeach()
