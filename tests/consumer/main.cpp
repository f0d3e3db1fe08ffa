// The integration example of README.md: a game loop paced at 120 Hz with
// pacer.h alone. CI builds it three ways (add_subdirectory, find_package,
// pkg-config), each with -Wall -Wextra -Werror -fno-exceptions, and runs it:
// it fails unless the loop really was paced.
#include <pacer/pacer.h>
#include <pacer/version.h>

#include <cstdio>
#include <cstring>
#include <string>

int main() {
    // The library linked, the headers compiled against and (found as a
    // package) the CMake package's version: one version, said three ways.
    std::printf("pacer-consumer: pacer %s (headers %s)\n", pacer::version(), PACER_VERSION_STRING);
    if (std::strcmp(pacer::version(), PACER_VERSION_STRING) != 0) return 1;
#ifdef PACER_PACKAGE_VERSION
    if (std::strcmp(pacer::version(), PACER_PACKAGE_VERSION) != 0)
        return std::fprintf(stderr, "pacer-consumer: the CMake package says %s\n", PACER_PACKAGE_VERSION), 1;
#endif
    pacer::Config config;                                   // every default is in place
    config.target_hz = 120;
    std::string error;
    auto pacer = pacer::Pacer::create(config, &error);      // no exceptions needed
    if (!pacer) return std::fprintf(stderr, "pacer-consumer: %s\n", error.c_str()), 1;

    const int frames = 240;                                 // two seconds
    int64_t first_wake_ns = 0, last_wake_ns = 0;
    double game_time_s = 0;
    for (int i = 0; i < frames; ++i) {
        pacer::Frame frame = pacer->wait();                 // sleep to the next deadline
        game_time_s += frame.dt_ns * 1e-9;                  // simulate(dt); render(); swap();
        pacer->mark_present();                              // optional: the swap returned
        if (i == 0) first_wake_ns = frame.wake_ns;
        last_wake_ns = frame.wake_ns;
    }

    // Frame 0 anchors the grid and no wake comes before its deadline, so the
    // remaining frames take at least their periods; an unpaced loop does not.
    const double wall_s = (last_wake_ns - first_wake_ns) * 1e-9;
    const double min_wall_s = (frames - 1) / config.target_hz - 1e-6;
    std::printf("pacer-consumer: %d frames in %.3f s (%.1f fps), game time %.3f s\n", frames,
                wall_s, (frames - 1) / wall_s, game_time_s);
    return wall_s >= min_wall_s && game_time_s >= min_wall_s ? 0 : 1;
}
