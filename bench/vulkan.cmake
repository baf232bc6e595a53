# The Vulkan device's render-thread cost (issue 3): sort / translate / submit per packet for the sample's
# scenes, against a direct-Vulkan loop that records the same draws with no buckets, keys or sort.
#
#   build/release/bench/reel_vulkan_bench                       # lavapipe, or REEL_DEVICE=<name>
#   build/release/bench/reel_vulkan_bench --benchmark_filter=Stress
add_executable(reel_vulkan_bench vulkan_bench.cpp)
target_link_libraries(reel_vulkan_bench PRIVATE reel_samples reel_vulkan_internals reel_core_internals reel_warnings
                                                benchmark::benchmark)
