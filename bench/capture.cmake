# Capture and trace benchmarks (issue 4): capture overhead on the render and recording threads, writer
# throughput, compression settings compared on real frame messages, reader frames/s; and (issue 5) a
# replay's read + feed CPU per frame against the zstd floor.
add_executable(reel_capture_bench capture_bench.cpp)
target_link_libraries(reel_capture_bench PRIVATE reel_core_internals reel::capture reel::trace reel::replay reel_trace_internals PkgConfig::REEL_ZSTD reel_warnings
                      benchmark::benchmark)

# The writer at several compression threads, and the ratio of a trace captured again at other settings
# (bench/writer_bench.cpp; scripts/capture-benchmarks.sh).
add_executable(reel_writer_bench writer_bench.cpp)
target_link_libraries(reel_writer_bench PRIVATE reel::capture reel::trace reel::replay reel_trace_internals
                      reel_warnings)
