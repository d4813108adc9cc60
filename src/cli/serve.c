// SPDX-License-Identifier: GPL-2.0-only
/*
 * drmtop serve: a Prometheus / OpenMetrics exporter. One thread samples the sources every -d
 * seconds and folds each model into the series accumulator (series.h); the main thread is a
 * small HTTP/1.x server on non-blocking sockets around ppoll() that answers GET /metrics from
 * the latest series. The two share the series under one mutex, held only to fold a model in
 * (the slow part, reading /proc and the BPF maps, runs outside it) or to render a scrape in
 * memory; sockets are never touched under it, so a slow or silent scraper delays nobody.
 *
 * Any local user can connect, and all of them share 127.0.0.1, so connections are told apart by
 * owner: the local user of a loopback peer's socket, else the peer's address (peer_owner.h). A
 * connection is held only while it makes progress (a request head within IDLE_READ_NS of
 * connecting, whole within READ_TIMEOUT_NS), and when every slot is taken a new connection
 * evicts the oldest of the owner holding the most slots, among those not sending a response
 * with progress. A user renewing idle connections as fast as the CPU allows then evicts only
 * its own, never a scraper of another user that is slow to send its request.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "drmtop/options.h"
#include "drmtop/prometheus.h"
#include "drmtop/sampler.h"
#include "drmtop/serve.h"
#include "drmtop/series.h"
#include "drmtop/signals.h"
#include "drmtop/util/clock.h"
#include "drmtop/util/peer_owner.h"
#include "drmtop/version.h"

#define DEFAULT_LISTEN		"127.0.0.1:9469"
#define DEFAULT_MAX_CLIENTS	500
#define MAX_CONNS		64	/* beyond: the oldest evicted (or 503 if all are busy) */
#define REQ_MAX			8192	/* request line and headers */
#define IDLE_READ_NS		(2 * 1000000000ull)	/* a first byte, from accept */
#define READ_TIMEOUT_NS		(5 * 1000000000ull)	/* whole request, from accept */
#define WRITE_BUSY_NS		(1 * 1000000000ull)	/* a write this recent is not evicted */
#define WRITE_IDLE_NS		(10 * 1000000000ull)	/* without any progress */
#define WRITE_TIMEOUT_NS	(60 * 1000000000ull)	/* whole response */
#define LINGER_NS		(2 * 1000000000ull)	/* reading what a client still sends */

static const volatile sig_atomic_t *stop_requested;

enum conn_state { C_FREE, C_READ, C_WRITE, C_LINGER };

struct conn {
	int fd;
	enum conn_state state;
	char req[REQ_MAX];
	size_t req_len;
	char *out;
	size_t out_len, out_off;
	uint64_t start_ns, deadline_ns;
	uint64_t progress_ns;		/* last bytes sent (C_WRITE) */
	uint64_t owner;			/* drmtop_peer_owner() */
};

struct server {
	int lfd;
	struct conn conns[MAX_CONNS];
	unsigned int nr_conns;
	uint64_t scrapes, rejected, evicted, timeouts, bad_requests;

	pthread_mutex_t lock;		/* series, stop */
	pthread_cond_t wake;		/* CLOCK_MONOTONIC: ends the sampler's sleep at stop */
	bool stop;
	struct drmtop_series series;
	struct drmtop_sampler *sampler;
	uint64_t step_ns;
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: drmtop serve [--listen ADDR:PORT] [--per-client | --labels LIST]\n"
		"                    [--max-clients N] [-d SECONDS] [-p PID[,PID...]]\n"
		"                    [--source auto|fdinfo|bpf]\n"
		"                    [--proc-root DIR] [--sys-root DIR] [--diverge-threshold P]\n"
		"\n"
		"Serves the per-client figures as Prometheus metrics on http://ADDR:PORT/metrics\n"
		"(text format 0.0.4, or OpenMetrics 1.0.0 when the scraper's Accept asks for it).\n"
		"Client series are per command and workload: labels driver, device, comm,\n"
		"workload, container_id (runtime://id) and pod_uid (\"\" outside containers, pods).\n"
		"\n"
		"  --listen ADDR:PORT   address to listen on (default %s; [::1]:9469 for IPv6,\n"
		"                       :9469 for every IPv4 interface, port 0 for any free port)\n"
		"  --per-client         a series per client (labels pid and client_id), not one per\n"
		"                       command and workload: as many series as clients ever seen (up to\n"
		"                       --max-clients open ones); same as --labels pid,client_id\n"
		"  --labels LIST        client labels beyond the default ones: pid, client_id\n"
		"  --max-clients N      with per-client labels, series before later clients are\n"
		"                       folded by command and workload, pid=\"\" client_id=\"\"\n"
		"                       (default %d)\n"
		"  -d SECONDS           sampling interval (default 2); scrapes read the last sample\n"
		"  other options        as for top: -p, --source, --proc-root, --sys-root, ...\n",
		DEFAULT_LISTEN, DEFAULT_MAX_CLIENTS);
}

/* ---- command line ---- */

struct serve_args {
	const char *listen;
	size_t max_clients;
	unsigned int labels;
	bool help;
};

static int parse_max_clients(const char *arg, size_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || v > 1000000) {
		fprintf(stderr, "drmtop: invalid --max-clients '%s': want 0..1000000\n", arg);
		return -1;
	}
	*out = v;
	return 0;
}

/*
 * Takes serve's own options out of argv (into @a), leaving top's source options for
 * drmtop_options_parse() in @rest.
 */
static int split_args(int argc, char **argv, struct serve_args *a, char **rest, int *nr_rest)
{
	int i, n = 0;

	for (i = 0; i < argc; i++) {
		const char *s = argv[i], *v = NULL;
		bool listen = false, max = false, labels = false;

		if (i && !strcmp(s, "--")) {
			while (i < argc)
				rest[n++] = argv[i++];
			break;
		}
		if (i && (!strcmp(s, "--listen") || !strcmp(s, "--max-clients") ||
			  !strcmp(s, "--labels"))) {
			listen = !strcmp(s, "--listen");
			labels = !strcmp(s, "--labels");
			max = !listen && !labels;
			if (i + 1 >= argc) {
				fprintf(stderr, "drmtop: option '%s' needs a value\n", s);
				return -1;
			}
			v = argv[++i];
		} else if (i && !strncmp(s, "--listen=", 9)) {
			listen = true;
			v = s + 9;
		} else if (i && !strncmp(s, "--max-clients=", 14)) {
			max = true;
			v = s + 14;
		} else if (i && !strncmp(s, "--labels=", 9)) {
			labels = true;
			v = s + 9;
		} else if (i && !strcmp(s, "--per-client")) {
			a->labels |= DRMTOP_SERIES_LABELS_PER_CLIENT;
			continue;
		} else if (i && (!strcmp(s, "-h") || !strcmp(s, "--help"))) {
			a->help = true;
			continue;
		}
		if (listen) {
			a->listen = v;
		} else if (labels) {
			unsigned int mask;

			if (drmtop_series_labels_parse(v, &mask)) {
				fprintf(stderr, "drmtop: invalid --labels '%s': want a list of pid, "
					"client_id\n", v);
				return -1;
			}
			a->labels |= mask;
		} else if (max && parse_max_clients(v, &a->max_clients))
			return -1;
		else if (!max && !labels)
			rest[n++] = argv[i];
	}
	rest[n] = NULL;
	*nr_rest = n;
	return 0;
}

/* "HOST:PORT", "[V6]:PORT" or ":PORT" into a listening socket. */
static int listen_on(const char *spec)
{
	struct addrinfo hints = { 0 }, *res = NULL, *ai;
	char host[256], port[16];
	const char *colon, *h = spec;
	size_t hl;
	int fd = -1, one = 1, err;

	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');

		if (!close || close[1] != ':')
			goto bad;
		h = spec + 1;
		hl = (size_t)(close - h);
		colon = close + 1;
	} else {
		colon = strrchr(spec, ':');
		if (!colon || memchr(spec, ':', (size_t)(colon - spec)))
			goto bad;	/* none, or an IPv6 address without brackets */
		hl = (size_t)(colon - spec);
	}
	if (hl >= sizeof(host) || strlen(colon + 1) >= sizeof(port) || !colon[1] ||
	    strspn(colon + 1, "0123456789") != strlen(colon + 1) || atol(colon + 1) > 65535)
		goto bad;
	memcpy(host, h, hl);
	host[hl] = '\0';
	snprintf(port, sizeof(port), "%s", colon + 1);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	err = getaddrinfo(hl ? host : "0.0.0.0", port, &hints, &res);
	if (err) {
		fprintf(stderr, "drmtop: --listen %s: %s\n", spec, gai_strerror(err));
		return -1;
	}
	err = 0;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
			    ai->ai_protocol);
		if (fd < 0) {
			err = errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		/*
		 * A deep accept queue: under a flood of connects a full one drops a scraper's
		 * SYN, and its retry comes a second later (a scrape timeout), not at once.
		 */
		if (!bind(fd, ai->ai_addr, ai->ai_addrlen) && !listen(fd, SOMAXCONN))
			break;
		err = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		fprintf(stderr, "drmtop: cannot listen on %s: %s\n", spec, strerror(err));
	return fd;
bad:
	fprintf(stderr, "drmtop: invalid --listen '%s': want HOST:PORT, [IPV6]:PORT or :PORT\n",
		spec);
	return -1;
}

static void say_listening(int fd, const struct drmtop_options *opts)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned int port = 0;

	if (!getsockname(fd, (struct sockaddr *)&ss, &len)) {
		if (ss.ss_family == AF_INET6) {
			struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

			inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
			port = ntohs(s6->sin6_port);
		} else {
			struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

			inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
			port = ntohs(s4->sin_port);
		}
	}
	fprintf(stderr, "drmtop serve: listening on http://%s%s%s:%u/metrics, sampling every %g s\n",
		ss.ss_family == AF_INET6 ? "[" : "", host, ss.ss_family == AF_INET6 ? "]" : "", port,
		opts->interval_s);
}

/* ---- the sampling thread ---- */

static void *sample_loop(void *arg)
{
	struct server *srv = arg;
	struct drmtop_model m = { 0 };
	uint64_t deadline = drmtop_mono_ns();
	char last_error[512] = "";
	struct timespec ts;

	pthread_mutex_lock(&srv->lock);
	while (!srv->stop) {
		uint64_t t0, dt, now;
		int err;

		pthread_mutex_unlock(&srv->lock);
		t0 = drmtop_mono_ns();
		err = drmtop_sampler_next(srv->sampler, &m);
		dt = drmtop_mono_ns() - t0;
		/* Said once per distinct error, not every interval of a long outage. */
		if (err && strcmp(last_error, drmtop_sampler_error(srv->sampler))) {
			snprintf(last_error, sizeof(last_error), "%s",
				 drmtop_sampler_error(srv->sampler));
			fprintf(stderr, "drmtop serve: sample failed: %s\n", last_error);
		} else if (!err) {
			last_error[0] = '\0';
		}
		pthread_mutex_lock(&srv->lock);
		if (err)
			drmtop_series_sample_failed(&srv->series);
		else if (drmtop_series_update(&srv->series, &m, dt))
			fprintf(stderr, "drmtop serve: out of memory folding a sample in\n");
		now = drmtop_mono_ns();
		deadline = drmtop_next_tick(deadline, srv->step_ns, now);
		ts.tv_sec = (time_t)(deadline / 1000000000u);
		ts.tv_nsec = (long)(deadline % 1000000000u);
		while (!srv->stop && drmtop_mono_ns() < deadline)
			pthread_cond_timedwait(&srv->wake, &srv->lock, &ts);
	}
	pthread_mutex_unlock(&srv->lock);
	drmtop_model_fini(&m);
	return NULL;
}

/* ---- HTTP ---- */

static void conn_close(struct server *srv, struct conn *c)
{
	close(c->fd);
	free(c->out);
	c->out = NULL;
	c->fd = -1;
	c->state = C_FREE;
	srv->nr_conns--;
}

/* Queues a whole response (@body NULL: none, as for HEAD) and switches to writing. */
static void respond(struct conn *c, const char *status, const char *type, const char *extra,
		    const char *body, size_t body_len, bool head)
{
	char hdr[512];
	int n = snprintf(hdr, sizeof(hdr),
			 "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
			 "Connection: close\r\n\r\n", status, type, body_len, extra ? extra : "");
	size_t len = (size_t)n + (head ? 0 : body_len);

	c->out = malloc(len);
	if (!c->out) {
		c->out_len = 0;
	} else {
		memcpy(c->out, hdr, (size_t)n);
		if (!head && body_len)
			memcpy(c->out + n, body, body_len);
		c->out_len = len;
	}
	c->out_off = 0;
	c->state = C_WRITE;
	c->progress_ns = drmtop_mono_ns();
	c->deadline_ns = c->progress_ns + WRITE_IDLE_NS;
}

static void respond_text(struct conn *c, const char *status, const char *extra, const char *msg,
			 bool head)
{
	respond(c, status, "text/plain; charset=utf-8", extra, msg, strlen(msg), head);
}

static void scrape(struct server *srv, struct conn *c, const char *accept, bool head)
{
	enum drmtop_prom_format fmt = drmtop_prom_negotiate(accept);
	struct drmtop_prom_info info = {
		.version = DRMTOP_VERSION,
		.start_ns = c->start_ns,
		.connections = srv->nr_conns,
		.rejected = srv->rejected,
		.evicted = srv->evicted,
		.timeouts = srv->timeouts,
		.bad_requests = srv->bad_requests,
	};
	char *body = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&body, &len);
	int err = -1;

	if (!f) {
		respond_text(c, "500 Internal Server Error", NULL, "out of memory\n", head);
		return;
	}
	info.scrapes = ++srv->scrapes;
	pthread_mutex_lock(&srv->lock);
	err = drmtop_prom_write(f, &srv->series, fmt, &info);
	/* HEAD sends no body: closed clients' final figures wait for a real scrape. */
	if (!err && !head)
		drmtop_series_scraped(&srv->series);
	pthread_mutex_unlock(&srv->lock);
	if (fclose(f))
		err = -1;
	if (err)
		respond_text(c, "500 Internal Server Error", NULL, "out of memory\n", head);
	else
		respond(c, "200 OK", drmtop_prom_content_type(fmt), NULL, body, len, head);
	free(body);
}

/* The value of header @name in the NUL-terminated header block @h, copied into @buf. */
static const char *header(const char *h, const char *name, char *buf, size_t size)
{
	size_t nl = strlen(name);

	while (h && *h) {
		const char *eol = strpbrk(h, "\r\n"), *v;
		size_t len;

		if (!eol)
			eol = h + strlen(h);
		if ((size_t)(eol - h) > nl && !strncasecmp(h, name, nl) && h[nl] == ':') {
			v = h + nl + 1;
			while (v < eol && (*v == ' ' || *v == '\t'))
				v++;
			len = (size_t)(eol - v);
			if (len >= size)
				len = size - 1;
			memcpy(buf, v, len);
			buf[len] = '\0';
			return buf;
		}
		h = eol + strspn(eol, "\r\n");
	}
	return NULL;
}

/* A complete request head is in c->req: answer it. */
static void handle_request(struct server *srv, struct conn *c)
{
	char method[16], target[2048], version[16], accept[1024];
	const char *line_end = strpbrk(c->req, "\r\n"), *q;
	size_t path_len;
	bool head;

	if (!line_end || (size_t)(line_end - c->req) >= sizeof(target) ||
	    sscanf(c->req, "%15s %2047s %15s", method, target, version) != 3 ||
	    strncmp(version, "HTTP/1.", 7)) {
		srv->bad_requests++;
		respond_text(c, "400 Bad Request", NULL, "bad request\n", false);
		return;
	}
	head = !strcmp(method, "HEAD");
	if (strcmp(method, "GET") && !head) {
		respond_text(c, "405 Method Not Allowed", "Allow: GET, HEAD\r\n",
			     "only GET and HEAD\n", false);
		return;
	}
	q = strchr(target, '?');
	path_len = q ? (size_t)(q - target) : strlen(target);
	if (path_len != 8 || strncmp(target, "/metrics", 8)) {
		respond_text(c, "404 Not Found", NULL, "not found: the metrics are at /metrics\n",
			     head);
		return;
	}
	scrape(srv, c, header(line_end + strspn(line_end, "\r\n"), "Accept", accept,
			      sizeof(accept)), head);
}

static void on_readable(struct server *srv, struct conn *c)
{
	char sink[4096];
	ssize_t n;

	if (c->state == C_LINGER) {
		n = recv(c->fd, sink, sizeof(sink), 0);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			conn_close(srv, c);
		return;
	}
	n = recv(c->fd, c->req + c->req_len, sizeof(c->req) - 1 - c->req_len, 0);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		conn_close(srv, c);
		return;
	}
	if (n < 0)
		return;
	if (!c->req_len)	/* it spoke: the rest of the request by the whole deadline */
		c->deadline_ns = c->start_ns + READ_TIMEOUT_NS;
	c->req_len += (size_t)n;
	c->req[c->req_len] = '\0';
	if (strstr(c->req, "\r\n\r\n") || strstr(c->req, "\n\n")) {
		handle_request(srv, c);
	} else if (c->req_len == sizeof(c->req) - 1) {
		srv->bad_requests++;
		respond_text(c, "431 Request Header Fields Too Large", NULL,
			     "request too large\n", false);
	}
}

static void on_writable(struct server *srv, struct conn *c)
{
	ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
	uint64_t now = drmtop_mono_ns();

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n < 0) {
		conn_close(srv, c);
		return;
	}
	c->out_off += (size_t)n;
	c->progress_ns = now;
	c->deadline_ns = now + WRITE_IDLE_NS;
	if (c->deadline_ns > c->start_ns + WRITE_TIMEOUT_NS)
		c->deadline_ns = c->start_ns + WRITE_TIMEOUT_NS;
	if (c->out_off < c->out_len)
		return;
	/*
	 * Done: end our side and read what the client may still send (a body we did not want)
	 * until it closes, so the kernel does not reset the connection under its response.
	 */
	free(c->out);
	c->out = NULL;
	shutdown(c->fd, SHUT_WR);
	c->state = C_LINGER;
	c->deadline_ns = now + LINGER_NS;
}

static bool evictable(const struct conn *c, uint64_t now)
{
	return c->state != C_FREE && !(c->state == C_WRITE && now - c->progress_ns < WRITE_BUSY_NS);
}

/*
 * The slot to give up for a new connection when all are taken, among the connections still
 * reading their request or lingering, or writing without progress for WRITE_BUSY_NS: the oldest
 * of the owner holding the most of them. NULL when every one is sending a response right now.
 */
static struct conn *victim(struct server *srv, uint64_t now)
{
	unsigned int held[MAX_CONNS] = { 0 }, most = 0;
	bool may[MAX_CONNS];
	struct conn *v = NULL;
	size_t i, j;

	for (i = 0; i < MAX_CONNS; i++)
		may[i] = evictable(&srv->conns[i], now);
	for (i = 0; i < MAX_CONNS; i++) {
		if (!may[i])
			continue;
		for (j = 0; j < MAX_CONNS; j++)
			held[i] += may[j] && srv->conns[j].owner == srv->conns[i].owner;
		if (held[i] > most)
			most = held[i];
	}
	for (i = 0; i < MAX_CONNS; i++) {
		struct conn *c = &srv->conns[i];

		if (held[i] == most && most && (!v || c->start_ns < v->start_ns))
			v = c;
	}
	return v;
}

static void on_accept(struct server *srv)
{
	static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
				   "Connection: close\r\n\r\n";
	size_t i;

	for (;;) {
		int fd = accept4(srv->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		uint64_t now = drmtop_mono_ns();
		struct conn *c;

		if (fd < 0)
			return;		/* EAGAIN, or a connection that went away: next time */
		if (srv->nr_conns == MAX_CONNS) {
			c = victim(srv, now);
			if (c) {
				conn_close(srv, c);
				srv->evicted++;
			}
		}
		if (srv->nr_conns == MAX_CONNS) {
			/* Best effort, never waiting: this client gets nothing more. */
			if (send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
				(void)0;
			close(fd);
			srv->rejected++;
			continue;
		}
		for (i = 0; srv->conns[i].state != C_FREE; i++)
			;
		c = &srv->conns[i];
		c->fd = fd;
		c->state = C_READ;
		c->req_len = 0;
		c->req[0] = '\0';
		c->start_ns = now;
		c->deadline_ns = now + IDLE_READ_NS;
		c->owner = drmtop_peer_owner(fd);
		srv->nr_conns++;
		/* A request already here is answered now, before more accepts can evict it. */
		on_readable(srv, c);
	}
}

static int serve_loop(struct server *srv, const sigset_t *run_mask)
{
	struct pollfd pfd[MAX_CONNS + 1];
	struct conn *who[MAX_CONNS + 1];

	while (!*stop_requested) {
		uint64_t now = drmtop_mono_ns(), next = now + 1000000000ull;
		struct timespec ts;
		nfds_t n = 1, i;
		int rc;

		pfd[0].fd = srv->lfd;
		pfd[0].events = POLLIN;
		who[0] = NULL;
		for (i = 0; i < MAX_CONNS; i++) {
			struct conn *c = &srv->conns[i];

			if (c->state == C_FREE)
				continue;
			if (c->deadline_ns <= now) {
				if (c->state != C_LINGER)
					srv->timeouts++;
				conn_close(srv, c);
				continue;
			}
			if (c->deadline_ns < next)
				next = c->deadline_ns;
			pfd[n].fd = c->fd;
			pfd[n].events = c->state == C_WRITE ? POLLOUT : POLLIN;
			who[n++] = c;
		}
		ts.tv_sec = (time_t)((next - now) / 1000000000u);
		ts.tv_nsec = (long)((next - now) % 1000000000u);
		/* Signals are blocked except inside ppoll: none is lost between check and wait. */
		rc = ppoll(pfd, n, &ts, run_mask);
		if (rc < 0 && errno != EINTR) {
			fprintf(stderr, "drmtop serve: poll: %s\n", strerror(errno));
			return -1;
		}
		if (rc <= 0)
			continue;
		for (i = 1; i < n; i++) {
			struct conn *c = who[i];

			if (!pfd[i].revents || c->state == C_FREE)
				continue;
			if (c->state == C_WRITE && c->out_len == 0) {
				conn_close(srv, c);	/* no memory for the response */
				continue;
			}
			if (c->state == C_WRITE && (pfd[i].revents & (POLLOUT | POLLERR | POLLHUP)))
				on_writable(srv, c);
			else if (pfd[i].revents & (POLLIN | POLLERR | POLLHUP))
				on_readable(srv, c);
		}
		if (pfd[0].revents & POLLIN)
			on_accept(srv);
	}
	return 0;
}

static int run(struct server *srv, const struct drmtop_options *opts, const sigset_t *run_mask)
{
	pthread_condattr_t ca;
	pthread_t th;
	size_t i;
	int rc, err;

	for (i = 0; i < MAX_CONNS; i++)
		srv->conns[i].fd = -1;
	srv->step_ns = (uint64_t)(opts->interval_s * 1e9);
	pthread_mutex_init(&srv->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&srv->wake, &ca);
	pthread_condattr_destroy(&ca);
	err = pthread_create(&th, NULL, sample_loop, srv);
	if (err) {
		fprintf(stderr, "drmtop serve: cannot start the sampling thread: %s\n",
			strerror(err));
		return 1;
	}
	say_listening(srv->lfd, opts);
	rc = serve_loop(srv, run_mask);

	pthread_mutex_lock(&srv->lock);
	srv->stop = true;
	pthread_cond_signal(&srv->wake);
	pthread_mutex_unlock(&srv->lock);
	pthread_join(th, NULL);
	for (i = 0; i < MAX_CONNS; i++)
		if (srv->conns[i].state != C_FREE)
			conn_close(srv, &srv->conns[i]);
	pthread_cond_destroy(&srv->wake);
	pthread_mutex_destroy(&srv->lock);
	if (!rc)
		fprintf(stderr, "drmtop serve: stopped\n");
	return rc ? 1 : 0;
}

int drmtop_serve_main(int argc, char **argv)
{
	struct serve_args a = { .listen = DEFAULT_LISTEN, .max_clients = DEFAULT_MAX_CLIENTS,
				.labels = DRMTOP_SERIES_LABELS_DEFAULT };
	struct drmtop_options opts;
	sigset_t block, run_mask;
	struct server *srv;
	char **rest;
	int nr_rest, rc;

	rest = calloc((size_t)argc + 1, sizeof(*rest));
	if (!rest || split_args(argc, argv, &a, rest, &nr_rest)) {
		free(rest);
		return 2;
	}
	if (a.help) {
		usage(stdout);
		free(rest);
		return 0;
	}
	rc = drmtop_options_parse(&opts, DRMTOP_CMD_TOP, nr_rest, rest, stderr);
	free(rest);
	if (rc)
		return 2;
	/* a client's series gets its final figures, and closes, from its own close record */
	opts.each_closed = true;
	if (opts.show_version) {
		printf("drmtop %s\n", DRMTOP_VERSION);
		drmtop_options_free(&opts);
		return 0;
	}
	if (opts.output != DRMTOP_OUT_AUTO || opts.iterations) {
		fprintf(stderr, "drmtop: serve has no -b, -J, -o or -n: it answers scrapes\n");
		drmtop_options_free(&opts);
		return 2;
	}
	/*
	 * Handled from here on and blocked everywhere but in the main thread's ppoll (the sampler
	 * thread inherits the mask and never sees one): a signal while the tracer loads (seconds on
	 * a slow machine) waits for the first ppoll and ends serve cleanly, like one after it.
	 */
	stop_requested = drmtop_stop_signals(false);
	drmtop_stop_sigset(&block);
	pthread_sigmask(SIG_BLOCK, &block, &run_mask);
	sigdelset(&run_mask, SIGINT);
	sigdelset(&run_mask, SIGTERM);
	sigdelset(&run_mask, SIGHUP);
	srv = calloc(1, sizeof(*srv));
	if (!srv) {
		drmtop_options_free(&opts);
		return 1;
	}
	drmtop_series_init(&srv->series, a.max_clients, a.labels);
	srv->lfd = listen_on(a.listen);
	rc = 1;
	if (srv->lfd >= 0 && !drmtop_sampler_new(&srv->sampler, &opts, "/dev")) {
		rc = run(srv, &opts, &run_mask);
		drmtop_sampler_free(srv->sampler);
	}
	if (srv->lfd >= 0)
		close(srv->lfd);
	drmtop_series_fini(&srv->series);
	free(srv);
	drmtop_options_free(&opts);
	return rc;
}
