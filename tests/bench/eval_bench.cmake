# Evaluation benchmark (tests/bench/README.md): cmake --build build --target eval_bench &&
# build/tests/eval_bench. Not built by default and not in CTest.
add_custom_command(OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/eval_bench_gen/mrm_generated.hpp
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/eval_bench_gen
  COMMAND $<TARGET_FILE:pamc> compile ${CMAKE_SOURCE_DIR}/samples/mrm.pam --emit cpp
          -o ${CMAKE_CURRENT_BINARY_DIR}/eval_bench_gen/mrm_generated.hpp
  DEPENDS pamc ${CMAKE_SOURCE_DIR}/samples/mrm.pam
  COMMENT "pamc --emit cpp samples/mrm.pam (eval_bench)")
add_executable(eval_bench EXCLUDE_FROM_ALL ${CMAKE_CURRENT_LIST_DIR}/eval_bench.cpp
  ${CMAKE_CURRENT_BINARY_DIR}/eval_bench_gen/mrm_generated.hpp)
target_include_directories(eval_bench PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/eval_bench_gen)
# pamela_objects: the library's code, linked statically here (with pamc_passes for the
# GiNaC reference, which the shared library keeps private).
target_link_libraries(eval_bench PRIVATE pamela_objects pamc_passes)
target_compile_definitions(eval_bench PRIVATE PAMC_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
target_compile_options(eval_bench PRIVATE ${PAMC_WARNINGS} -O2)
