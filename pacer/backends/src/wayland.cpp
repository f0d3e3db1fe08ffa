// wayland.cpp: pacer::wayland::PresentFeedback from wp_presentation
// (presentation-time.xml, stable), whose client code wayland-scanner writes
// at build time.
//
// The window system (SDL, GLFW, the engine) owns the wl_display and
// dispatches its default queue in its own event loop. Everything here lives
// on a queue of its own, read without blocking, so neither side dispatches
// the other's events.
#include <pacer/backends/wayland.h>
#include <pacer/units.h>

#include <poll.h>
#include <time.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <limits>
#include <memory>
#include <utility>

#include <wayland-client.h>

#include "presentation-time-client-protocol.h"

namespace pacer::wayland {
namespace {

int64_t read_ns(clockid_t clock) {
    timespec ts{};
    if (clock_gettime(clock, &ts) != 0) return -1;
    return static_cast<int64_t>(ts.tv_sec) * kNsPerSecond + ts.tv_nsec;
}

const char* clock_id_name(uint32_t clock_id) {
    switch (static_cast<clockid_t>(clock_id)) {
        case CLOCK_MONOTONIC: return "CLOCK_MONOTONIC";
        case CLOCK_MONOTONIC_RAW: return "CLOCK_MONOTONIC_RAW";
        case CLOCK_REALTIME: return "CLOCK_REALTIME";
        case CLOCK_BOOTTIME: return "CLOCK_BOOTTIME";
        default: return "an unknown clock";
    }
}

// Maps the compositor's presentation clock onto CLOCK_MONOTONIC, the pacer's
// (pacer::OsClock). MONOTONIC_RAW is not slewed by NTP and MONOTONIC is, so
// the two drift apart by up to 0.05 % and the offset is re-sampled every
// half second. Each sample brackets one read of the source clock between two
// reads of MONOTONIC; the tightest bracket of several wins.
class ClockMap {
public:
    explicit ClockMap(clockid_t source) : source_(source) {}

    // Re-samples when the offset is older than kResampleNs.
    void refresh() {
        if (source_ == CLOCK_MONOTONIC) return;
        const int64_t now = read_ns(CLOCK_MONOTONIC);
        if (valid_ && now - sampled_ns_ < kResampleNs) return;
        int64_t best_width = std::numeric_limits<int64_t>::max();
        for (int i = 0; i < 5; ++i) {
            const int64_t before = read_ns(CLOCK_MONOTONIC);
            const int64_t source = read_ns(source_);
            const int64_t after = read_ns(CLOCK_MONOTONIC);
            if (source < 0) return;   // a clock this kernel cannot read: no times
            if (after - before < best_width) {
                best_width = after - before;
                offset_ns_ = before + (after - before) / 2 - source;
            }
        }
        sampled_ns_ = now;
        valid_ = true;
    }
    bool valid() const { return source_ == CLOCK_MONOTONIC || valid_; }
    int64_t to_monotonic_ns(int64_t source_ns) const {
        return source_ == CLOCK_MONOTONIC ? source_ns : source_ns + offset_ns_;
    }

private:
    static constexpr int64_t kResampleNs = 500'000'000;
    clockid_t source_;
    bool valid_ = false;
    int64_t offset_ns_ = 0;
    int64_t sampled_ns_ = 0;
};

}  // namespace

struct PresentFeedback::Impl {
public:
    Impl(wl_display* display, wl_surface* surface)
        : display_(display), surface_(surface), queue_(wl_display_create_queue(display)) {}

    ~Impl() {
        for (const std::unique_ptr<Pending>& pending : pending_) {
            wp_presentation_feedback_destroy(pending->feedback);
        }
        if (presentation_ != nullptr) wp_presentation_destroy(presentation_);
        wl_event_queue_destroy(queue_);
    }

    // Binds wp_presentation on the private queue and waits for its clock_id.
    bool bind(std::string* why) {
        auto* wrapper = static_cast<wl_display*>(wl_proxy_create_wrapper(display_));
        wl_proxy_set_queue(reinterpret_cast<wl_proxy*>(wrapper), queue_);
        wl_registry* registry = wl_display_get_registry(wrapper);
        wl_proxy_wrapper_destroy(wrapper);
        static const wl_registry_listener registry_listener = {on_global, on_global_remove};
        wl_registry_add_listener(registry, &registry_listener, this);
        const bool ok = wl_display_roundtrip_queue(display_, queue_) >= 0 && presentation_ != nullptr &&
                        wl_display_roundtrip_queue(display_, queue_) >= 0 && clock_.has_value;
        wl_registry_destroy(registry);
        if (!ok) {
            *why = presentation_ == nullptr ? "the compositor offers no wp_presentation"
                                            : "wp_presentation sent no clock_id";
            return false;
        }
        return true;
    }

    void request(int64_t frame_index) {
        read_events();   // keeps the private queue short between swaps
        auto pending = std::make_unique<Pending>(
            Pending{this, frame_index, wp_presentation_feedback(presentation_, surface_)});
        static const wp_presentation_feedback_listener listener = {on_sync_output, on_presented, on_discarded};
        wp_presentation_feedback_add_listener(pending->feedback, &listener, pending.get());
        pending_.push_back(std::move(pending));
    }

    bool take(Presented* out) {
        read_events();
        if (ready_.empty()) return false;
        *out = ready_.front();
        ready_.pop_front();
        return true;
    }

    const char* clock_name() const { return clock_id_name(clock_.id); }

private:
    struct Pending {
        Impl* self;
        int64_t frame_index;
        struct wp_presentation_feedback* feedback;
    };
    struct Clock {
        bool has_value = false;
        uint32_t id = 0;
    };

    // Reads what the socket holds into every queue (SDL's and GLFW's events
    // wait on theirs for their own dispatch) and dispatches ours. Never blocks.
    void read_events() {
        while (wl_display_prepare_read_queue(display_, queue_) != 0) {
            wl_display_dispatch_queue_pending(display_, queue_);
        }
        wl_display_flush(display_);
        pollfd fd{wl_display_get_fd(display_), POLLIN, 0};
        if (poll(&fd, 1, 0) > 0 && (fd.revents & POLLIN) != 0) {
            wl_display_read_events(display_);
        } else {
            wl_display_cancel_read(display_);
        }
        wl_display_dispatch_queue_pending(display_, queue_);
    }

    void finish(Pending* pending, const Presented& presented) {
        ready_.push_back(presented);
        wp_presentation_feedback_destroy(pending->feedback);
        pending_.erase(std::find_if(pending_.begin(), pending_.end(),
                                    [pending](const std::unique_ptr<Pending>& p) { return p.get() == pending; }));
    }

    static void on_global(void* data, wl_registry* registry, uint32_t name, const char* interface,
                          uint32_t /*version*/) {
        auto* self = static_cast<Impl*>(data);
        if (std::strcmp(interface, wp_presentation_interface.name) != 0 || self->presentation_ != nullptr) return;
        self->presentation_ = static_cast<wp_presentation*>(
            wl_registry_bind(registry, name, &wp_presentation_interface, 1));
        static const wp_presentation_listener listener = {on_clock_id};
        wp_presentation_add_listener(self->presentation_, &listener, self);
    }
    static void on_global_remove(void*, wl_registry*, uint32_t) {}

    static void on_clock_id(void* data, wp_presentation*, uint32_t clock_id) {
        auto* self = static_cast<Impl*>(data);
        self->clock_ = {true, clock_id};
        self->map_ = ClockMap(static_cast<clockid_t>(clock_id));
        self->map_.refresh();
    }

    static void on_sync_output(void*, struct wp_presentation_feedback*, wl_output*) {}

    static void on_presented(void* data, struct wp_presentation_feedback*, uint32_t tv_sec_hi, uint32_t tv_sec_lo,
                             uint32_t tv_nsec, uint32_t refresh, uint32_t seq_hi, uint32_t seq_lo,
                             uint32_t flags) {
        auto* pending = static_cast<Pending*>(data);
        Impl* self = pending->self;
        const int64_t sec = static_cast<int64_t>((static_cast<uint64_t>(tv_sec_hi) << 32) | tv_sec_lo);
        self->map_.refresh();
        Presented presented;
        presented.frame_index = pending->frame_index;
        presented.displayed_ns = self->map_.valid()
                                     ? self->map_.to_monotonic_ns(sec * kNsPerSecond + tv_nsec)
                                     : -1;
        presented.refresh_ns = refresh;
        presented.seq = (static_cast<uint64_t>(seq_hi) << 32) | seq_lo;
        presented.flags = flags;
        self->finish(pending, presented);
    }

    static void on_discarded(void* data, struct wp_presentation_feedback*) {
        auto* pending = static_cast<Pending*>(data);
        Presented presented;
        presented.frame_index = pending->frame_index;
        presented.discarded = true;
        pending->self->finish(pending, presented);
    }

    wl_display* display_;
    wl_surface* surface_;
    wl_event_queue* queue_;
    wp_presentation* presentation_ = nullptr;
    Clock clock_;
    ClockMap map_{CLOCK_MONOTONIC};
    std::deque<std::unique_ptr<Pending>> pending_;   // requested, fate unknown
    std::deque<Presented> ready_;    // fate known, not yet taken
};

PresentFeedback::PresentFeedback(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PresentFeedback::~PresentFeedback() = default;

std::unique_ptr<PresentFeedback> PresentFeedback::open(wl_display* display, wl_surface* surface, std::string* why) {
    std::string reason;
    if (display == nullptr || surface == nullptr) {
        if (why != nullptr) *why = "not a Wayland surface";
        return nullptr;
    }
    auto impl = std::make_unique<Impl>(display, surface);
    if (!impl->bind(&reason)) {
        if (why != nullptr) *why = reason;
        return nullptr;
    }
    return std::unique_ptr<PresentFeedback>(new PresentFeedback(std::move(impl)));
}

void PresentFeedback::request(int64_t frame_index) { impl_->request(frame_index); }
bool PresentFeedback::take(Presented* out) { return impl_->take(out); }
const char* PresentFeedback::clock_name() const { return impl_->clock_name(); }

}  // namespace pacer::wayland
