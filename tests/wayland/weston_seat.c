/* weston_seat.c: a weston module that gives the headless backend a wl_seat.
 *
 * weston 10's headless backend creates no seat, and SDL2 2.26's Wayland
 * driver crashes in SDL_Init without one. Loaded with
 * `weston --modules=/path/pacer-weston-seat.so`, this module adds one seat
 * with a pointer and a keyboard and no input device behind them: clients see
 * the capabilities they expect, and no event ever arrives.
 *
 * The seat functions are exported by libweston-10.so but declared only in its
 * internal header, which Debian's libweston-10-dev does not ship, so they are
 * declared here with the signatures of weston 10.0. */
#include <stdlib.h>

#include <libweston/libweston.h>
#include <weston.h>

void weston_seat_init(struct weston_seat *seat, struct weston_compositor *ec, const char *seat_name);
void weston_seat_release(struct weston_seat *seat);
int weston_seat_init_pointer(struct weston_seat *seat);
int weston_seat_init_keyboard(struct weston_seat *seat, struct xkb_keymap *keymap);

struct pacer_seat {
	struct weston_seat seat;
	struct wl_listener compositor_destroy;
};

static void
on_compositor_destroy(struct wl_listener *listener, void *data)
{
	struct pacer_seat *ps = wl_container_of(listener, ps, compositor_destroy);
	(void)data;
	wl_list_remove(&ps->compositor_destroy.link);
	weston_seat_release(&ps->seat);
	free(ps);
}

WL_EXPORT int
wet_module_init(struct weston_compositor *compositor, int *argc, char *argv[])
{
	struct pacer_seat *ps = calloc(1, sizeof *ps);
	(void)argc;
	(void)argv;
	if (ps == NULL)
		return -1;
	weston_seat_init(&ps->seat, compositor, "default");
	weston_seat_init_pointer(&ps->seat);
	/* NULL: the compositor's keymap, from weston.ini's [keyboard] or "us". */
	if (weston_seat_init_keyboard(&ps->seat, NULL) < 0) {
		weston_seat_release(&ps->seat);
		free(ps);
		return -1;
	}
	ps->compositor_destroy.notify = on_compositor_destroy;
	wl_signal_add(&compositor->destroy_signal, &ps->compositor_destroy);
	return 0;
}
