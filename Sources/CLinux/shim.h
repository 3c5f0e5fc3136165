// Linux calls Swift's Glibc module leaves out (they are declared only under _GNU_SOURCE).

// Flushes every file of the filesystem holding `fd` (glibc ≥ 2.14): one call instead of an
// fsync per file when many small files were written together.
extern int syncfs(int fd);
