// The integration example of README.md: a game loop paced at 120 Hz by the
// default strategy (a high-resolution OS timer with a short spin tail).
// CI builds it against pacer as a subdirectory and as an installed package,
// with exceptions off, so it also checks that pacer.h needs none and that the
// loop really was paced.
#include <pacer/pacer.h>
#include <pacer/stats.h>

#include <cstdio>
#include <memory>
#include <string>

int main() {
    pacer::Config config;   // every default is in place
    config.target_hz = 120;
    std::string error;
    std::unique_ptr<pacer::Pacer> pacer = pacer::Pacer::create(config, &error);
    if (!pacer) {
        std::fprintf(stderr, "pacer-consumer: %s\n", error.c_str());
        return 1;
    }

    const int frame_count = 240;   // two seconds
    double game_time_s = 0;
    for (int i = 0; i < frame_count; ++i) {
        pacer::Frame frame = pacer->wait();    // sleep to the next deadline on the grid
        pacer->mark_present();                 // optional: when the swap returned
        game_time_s += frame.dt_ns * 1e-9;     // simulate(dt); render(); swap_buffers();
    }

    const pacer::Summary s = pacer->stats().summarize();
    std::printf("pacer-consumer: %lld frames, %s: %.1f fps, interval error p99 %.1f us, "
                "%.1f%% off by > 0.5 ms, %.1f%% CPU\n",
                static_cast<long long>(s.frames), pacer::strategy_name(pacer->status().strategy),
                s.fps, s.interval_error.p99_us, s.off_pct, s.cpu_pct);

    // dt is at least one period a frame (whole periods after a miss), so the
    // game clock covers at least the frames' periods; two frames of slack.
    const double min_game_time_s = (frame_count - 2) / config.target_hz;
    if (s.frames != frame_count || game_time_s < min_game_time_s) {
        std::fprintf(stderr, "pacer-consumer: expected %d frames over >= %.3f s, got %lld over %.3f s\n",
                     frame_count, min_game_time_s, static_cast<long long>(s.frames), game_time_s);
        return 1;
    }
    return 0;
}
