# Simulator benchmark: events/s on the MRM and its error table (docs/simulation.md).
# Not built by default and not in CTest. To enable, add to tests/CMakeLists.txt:
#   include(${CMAKE_CURRENT_SOURCE_DIR}/bench/bench.cmake)
# then: cmake --build build --target sim_bench && build/tests/sim_bench speed
add_executable(sim_bench EXCLUDE_FROM_ALL ${CMAKE_CURRENT_LIST_DIR}/sim_bench.cpp)
target_link_libraries(sim_bench PRIVATE pamc_runtime)
target_compile_options(sim_bench PRIVATE ${PAMC_WARNINGS})
include(${CMAKE_CURRENT_LIST_DIR}/eval_bench.cmake)
