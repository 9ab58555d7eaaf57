/*
 * A stand-in for CoreDNS in e2e machines (image registry.local/k8s/coredns:1.7.0, built by
 * scripts/e2e/provision.sh, stage standins; imported only where a test asks for it).
 *
 * This environment has no CoreDNS image (Debian ships no CoreDNS, and nothing is pulled), so the
 * CoreDNS pods of a cluster stay in ImagePullBackOff. That is fine for init and join, but
 * `kubeadm upgrade apply` (1.20, phases/upgrade/postupgrade.go, removeOldDNSDeploymentIfAnotherDNSIsUsed)
 * fails unless the CoreDNS Deployment has a ready replica. This program lets the CoreDNS pods
 * kubeadm's own manifest describes become Ready: it answers every HTTP request on the ports of
 * CoreDNS's probes, 8080 (liveness, /health) and 8181 (readiness, /ready), with 200 OK.
 * It serves no DNS. Arguments (-conf /etc/coredns/Corefile) are ignored. Exits on SIGTERM/SIGINT.
 */
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

static int listen_on(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
  struct sockaddr_in a;
  if (fd < 0) { perror("socket"); exit(1); }
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  a.sin_port = htons((unsigned short)port);
  if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 16) < 0) { perror("bind/listen"); exit(1); }
  return fd;
}

int main(int argc, char **argv) {
  static const char reply[] = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\nConnection: close\r\n\r\nOK\n";
  struct pollfd fds[2];
  struct sigaction sa;
  (void)argc; (void)argv;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  fds[0].fd = listen_on(8080);
  fds[1].fd = listen_on(8181);
  fds[0].events = fds[1].events = POLLIN;
  printf("coredns stand-in: 200 OK on :8080 and :8181, no DNS\n");
  fflush(stdout);
  while (!stop) {
    if (poll(fds, 2, 1000) <= 0) continue;
    for (int i = 0; i < 2; i++) {
      if (!(fds[i].revents & POLLIN)) continue;
      int c = accept(fds[i].fd, NULL, NULL);
      if (c < 0) continue;
      char buf[1024];
      struct pollfd in = { .fd = c, .events = POLLIN };
      /* Read (part of) the request first, so the client never sees a reset before the reply. */
      if (poll(&in, 1, 1000) > 0) (void)read(c, buf, sizeof buf);
      (void)write(c, reply, sizeof reply - 1);
      close(c);
    }
  }
  return 0;
}
