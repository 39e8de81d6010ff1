/* N chmod, N utimensat and N connects to a unix socket in DIR: the calls a
   Landlock-only sandbox's supervisor answers for the payload. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 10000;
	const char *dir = argc > 2 ? argv[2] : ".";
	char file[4096], sock[108];
	snprintf(file, sizeof file, "%s/supervised.f", dir);
	snprintf(sock, sizeof sock, "%s/supervised.s", dir);
	int fd = open(file, O_CREAT | O_WRONLY, 0644);
	if (fd < 0)
		return 1;
	close(fd);
	for (long i = 0; i < n; i++)
		if (chmod(file, 0644) || utimensat(AT_FDCWD, file, NULL, 0))
			return 2;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", sock);
	unlink(sock);
	int ln = socket(AF_UNIX, SOCK_STREAM, 0);
	if (ln < 0 || bind(ln, (struct sockaddr *)&sa, sizeof sa) || listen(ln, 4096))
		return 3;
	for (long i = 0; i < n; i++) {
		int c = socket(AF_UNIX, SOCK_STREAM, 0);
		if (c < 0 || connect(c, (struct sockaddr *)&sa, sizeof sa))
			return 4;
		close(c);
		int a = accept(ln, NULL, NULL);
		if (a >= 0)
			close(a);
	}
	unlink(sock);
	unlink(file);
	return 0;
}
