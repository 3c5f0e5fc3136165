// Linux calls Swift's Glibc module leaves out or cannot express.
#include <malloc.h>

// Flushes every file of the filesystem holding `fd` (glibc ≥ 2.14; declared only under
// _GNU_SOURCE): one call instead of an fsync per file when many small files were written.
extern int syncfs(int fd);

// mallopt(M_MMAP_THRESHOLD, bytes): the option is a macro Swift does not import.
static inline int quire_set_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }

// memmem(3), declared only under _GNU_SOURCE: text found in text byte for byte (`containsBytes`).
#include <stddef.h>
extern void *memmem(const void *haystack, size_t haystacklen, const void *needle, size_t needlelen);

// inotify, for `sync --watch` to notice a local change soon after it is made.
#include <sys/inotify.h>
#include <poll.h>

// sync_file_range(2), declared only under _GNU_SOURCE: starts writing a file's dirty pages
// back without waiting (SYNC_FILE_RANGE_WRITE), so a large download reaches the disk while
// it arrives and its final fsync finds little left to write.
#include <fcntl.h>
extern int sync_file_range(int fd, __off64_t offset, __off64_t nbytes, unsigned int flags);
static inline int quire_start_writeback(int fd, long long offset, long long length) {
    return sync_file_range(fd, offset, length, 2 /* SYNC_FILE_RANGE_WRITE */);
}

// O_DIRECT, declared only under _GNU_SOURCE; glibc's __O_DIRECT is the same flag, for the
// architecture built for (040000 on x86-64, 0200000 on arm64).
static inline int quire_o_direct(void) { return __O_DIRECT; }

// Pseudo-terminals (declared only under _XOPEN_SOURCE): the tests run quire on one, as a
// person does.
extern int posix_openpt(int flags);
extern int grantpt(int fd);
extern int unlockpt(int fd);
extern char *ptsname(int fd);

// posix_spawn, and closefrom for the child (glibc ≥ 2.34, declared only under _GNU_SOURCE):
// a program Quire starts gets standard input, output and error, and no other descriptor;
// pipe2, to make its pipe close-on-exec at once (no other thread's spawn inherits it).
#include <spawn.h>
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
extern int pipe2(int fds[2], int flags);
