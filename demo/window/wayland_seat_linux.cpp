// wayland_seat_linux.cpp: wayland_seat.h over libwayland-client.
#include "window/wayland_seat.h"

#include <wayland-client.h>

#include <cstdint>
#include <cstring>

namespace pacer_demo {

namespace {

struct SeatQuery {
    wl_seat* seat = nullptr;
    uint32_t capabilities = 0;
};

void on_capabilities(void* data, wl_seat*, uint32_t capabilities) {
    static_cast<SeatQuery*>(data)->capabilities |= capabilities;
}
void on_seat_name(void*, wl_seat*, const char*) {}   // version 2 on; bound at 1, never sent
const wl_seat_listener kSeatListener = {on_capabilities, on_seat_name};

void on_global(void* data, wl_registry* registry, uint32_t name, const char* interface, uint32_t) {
    auto* query = static_cast<SeatQuery*>(data);
    if (query->seat != nullptr || std::strcmp(interface, wl_seat_interface.name) != 0) return;
    query->seat = static_cast<wl_seat*>(wl_registry_bind(registry, name, &wl_seat_interface, 1));
    wl_seat_add_listener(query->seat, &kSeatListener, query);
}
void on_global_remove(void*, wl_registry*, uint32_t) {}
const wl_registry_listener kRegistryListener = {on_global, on_global_remove};

}  // namespace

bool wayland_seat_has_pointer(void* display_handle) {
    auto* display = static_cast<wl_display*>(display_handle);
    if (display == nullptr) return true;
    wl_event_queue* queue = wl_display_create_queue(display);
    auto* wrapper = static_cast<wl_display*>(wl_proxy_create_wrapper(display));
    wl_proxy_set_queue(reinterpret_cast<wl_proxy*>(wrapper), queue);
    wl_registry* registry = wl_display_get_registry(wrapper);
    SeatQuery query;
    wl_registry_add_listener(registry, &kRegistryListener, &query);
    // One round trip for the globals (the seat bound), one for its capabilities.
    bool answered = wl_display_roundtrip_queue(display, queue) >= 0;
    if (answered && query.seat != nullptr) answered = wl_display_roundtrip_queue(display, queue) >= 0;
    if (query.seat != nullptr) wl_seat_destroy(query.seat);
    wl_registry_destroy(registry);
    wl_proxy_wrapper_destroy(wrapper);
    wl_event_queue_destroy(queue);
    return !answered || (query.capabilities & WL_SEAT_CAPABILITY_POINTER) != 0;
}

}  // namespace pacer_demo
