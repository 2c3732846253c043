/* outset.c — a set of output files replaced together (outset.h).
 *
 * MBDC_TEST_HOOK (for tests/outputs_test.sh only) makes a run fail or stop at one step:
 * "enospc:NAME" fails file NAME's write as a full disk would; "stop:written" (every file
 * written, before the manifest), "stop:staged" (at the commit point), "stop:renamed:K" (after K
 * renames) print "mbdc: test hook: stopped" and wait to be killed. */
#define _DEFAULT_SOURCE /* flock */
#include "base/outset.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define STAGE_PREFIX ".mbdc-stage-"
#define MANIFEST "manifest"
#define PLACEHOLDER "0x000000000000" /* "0x" and 12 hex digits */

/* ---- the test hook ------------------------------------------------------------------------ */

static const char *hook(void) {
  const char *h = getenv("MBDC_TEST_HOOK");
  return h ? h : "";
}

static void hook_stop(const char *step) {
  if (strcmp(hook(), step) != 0) return;
  fprintf(stderr, "mbdc: test hook: stopped at %s\n", step);
  fflush(stderr);
  for (;;) pause();
}

/* ---- small helpers ------------------------------------------------------------------------ */

static int plain_name(const char *n) {
  return *n && !strchr(n, '/') && strcmp(n, ".") != 0 && strcmp(n, "..") != 0;
}

static int is_stage_name(const char *n) {
  return strncmp(n, STAGE_PREFIX, sizeof STAGE_PREFIX - 1) == 0 &&
         strlen(n) == sizeof STAGE_PREFIX - 1 + 6;
}

/* mkdir -p dir. Returns 0, or -1 (errno). */
static int make_dirs(const char *dir) {
  char *p = strdup(dir);
  int rc = p ? 0 : -1;
  for (char *s = p ? p + 1 : NULL; rc == 0 && s; s++) {
    if (*s != '/' && *s != '\0') continue;
    char c = *s;
    *s = '\0';
    if (mkdir(p, 0777) != 0 && errno != EEXIST) rc = -1;
    *s = c;
    if (!c) break;
  }
  free(p);
  return rc;
}

/* Remove every entry of the staging directory `name` in dirfd, then the directory. */
static void remove_stage(int dirfd, const char *name) {
  int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (d) {
    const struct dirent *e;
    while ((e = readdir(d)) != NULL)
      if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) unlinkat(fd, e->d_name, 0);
    closedir(d);
  } else if (fd >= 0) {
    close(fd);
  }
  unlinkat(dirfd, name, AT_REMOVEDIR);
}

/* ---- what an interrupted run left --------------------------------------------------------- */

/* A staging directory with a manifest: its files were complete; move those still there into
 * place. Returns the number moved. */
static int finish_stage(mbg_outset *s, int stagefd) {
  char text[4096];
  int fd = openat(stagefd, MANIFEST, O_RDONLY | O_CLOEXEC), moved = 0;
  ssize_t n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
  if (fd >= 0) close(fd);
  if (n <= 0) return 0;
  text[n] = '\0';
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    struct stat st;
    if (!plain_name(line) || fstatat(stagefd, line, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISREG(st.st_mode))
      continue;
    if (fstatat(s->dirfd, line, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode)) continue;
    if (renameat(stagefd, line, s->dirfd, line) == 0) moved++;
  }
  fsync(s->dirfd);
  return moved;
}

/* Every staging directory in dir is stale while we hold the lock: finish or remove it. Only our
 * own (same owner): in a shared directory such as /tmp another user's could otherwise make us
 * put their files over files we may replace and they may not. */
static void recover(mbg_outset *s) {
  int fd = openat(s->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d) {
    if (fd >= 0) close(fd);
    return;
  }
  const struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (!is_stage_name(e->d_name)) continue;
    int sfd = openat(s->dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sfd < 0) continue;
    struct stat st;
    if (fstat(sfd, &st) != 0 || st.st_uid != geteuid()) {
      close(sfd);
      continue;
    }
    if (fstatat(sfd, MANIFEST, &st, AT_SYMLINK_NOFOLLOW) == 0) {
      int moved = finish_stage(s, sfd);
      fprintf(s->err,
              "%s: note: an interrupted mbdc run had written its files completely; %d "
              "of them put in place now\n",
              s->dir, moved);
    } else {
      fprintf(s->err, "%s: note: removed the unfinished output of an interrupted mbdc run (%s)\n",
              s->dir, e->d_name);
    }
    close(sfd);
    remove_stage(s->dirfd, e->d_name);
  }
  closedir(d);
}

/* ---- the set ------------------------------------------------------------------------------ */

int mbg_outset_begin(mbg_outset *s, const char *dir, int make, FILE *err) {
  memset(s, 0, sizeof *s);
  s->dirfd = s->stagefd = -1;
  s->err = err;
  if (!dir || !*dir) dir = ".";
  if (!(s->dir = strdup(dir))) return fprintf(err, "%s: error: out of memory\n", dir), -1;
  struct stat st;
  if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
    fprintf(err, "%s: error: exists and is not a directory\n", dir);
    return mbg_outset_abort(s), -1;
  }
  if (make && make_dirs(dir) != 0) {
    fprintf(err, "%s: error: cannot create directory: %s\n", dir, strerror(errno));
    return mbg_outset_abort(s), -1;
  }
  s->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (s->dirfd < 0) {
    fprintf(err, "%s: error: cannot open directory: %s\n", dir, strerror(errno));
    return mbg_outset_abort(s), -1;
  }
  int locked;
  while ((locked = flock(s->dirfd, LOCK_EX) == 0) == 0 && errno == EINTR) continue;
  /* without a lock (a file system without flock) another run's staging directory cannot be
   * told from a stale one: then nothing is recovered */
  if (locked) recover(s);
  size_t n = strlen(dir) + sizeof "/" STAGE_PREFIX "XXXXXX";
  char *path = malloc(n);
  if (path) {
    snprintf(path, n, "%s/" STAGE_PREFIX "XXXXXX", dir);
    if (mkdtemp(path)) { /* mode 0700 */
      snprintf(s->stage, sizeof s->stage, "%s", strrchr(path, '/') + 1);
      s->stagefd = openat(s->dirfd, s->stage, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    free(path);
  }
  if (s->stagefd < 0) {
    fprintf(err, "%s: error: cannot create a staging directory: %s\n", dir, strerror(errno));
    return mbg_outset_abort(s), -1;
  }
  return 0;
}

/* The target `name` in dir may be replaced: missing, or a regular file (its stat in *st). */
static int replaceable(mbg_outset *s, const char *name, struct stat *st, int *exists) {
  *exists = fstatat(s->dirfd, name, st, AT_SYMLINK_NOFOLLOW) == 0;
  if (!*exists && errno != ENOENT) {
    fprintf(s->err, "%s/%s: error: %s\n", s->dir, name, strerror(errno));
    return 0;
  }
  if (*exists && !S_ISREG(st->st_mode)) {
    fprintf(s->err, "%s/%s: error: exists and is not a regular file (%s): not replaced\n", s->dir,
            name,
            S_ISDIR(st->st_mode)   ? "a directory"
            : S_ISLNK(st->st_mode) ? "a symbolic link"
                                   : "a device or other");
    return 0;
  }
  return 1;
}

FILE *mbg_outset_add(mbg_outset *s, const char *name) {
  struct stat st;
  int exists;
  if (s->nfiles == MBG_OUTSET_MAX || !plain_name(name)) {
    fprintf(s->err, "%s/%s: error: not a plain file name\n", s->dir, name);
    return NULL;
  }
  if (!replaceable(s, name, &st, &exists)) return NULL;
  for (int k = 0; k < s->nfiles; k++)
    if (strcmp(s->files[k].name, name) == 0) {
      fprintf(s->err, "%s/%s: error: written twice\n", s->dir, name);
      return NULL;
    }
  mbg_outset_file *f = &s->files[s->nfiles];
  memset(f, 0, sizeof *f);
  if (!(f->name = strdup(name))) return fprintf(s->err, "mbdc: error: out of memory\n"), NULL;
  s->nfiles++;
  /* 0666 minus the umask, as any new file; commit gives a replaced file's mode back */
  int fd = openat(s->stagefd, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0 || !(f->f = fdopen(fd, "w"))) {
    fprintf(s->err, "%s/%s: error: cannot create: %s\n", s->dir, name, strerror(errno));
    if (fd >= 0) close(fd);
    return NULL;
  }
  /* a 1 MiB buffer (glibc ignores the size unless given the buffer): a large model's source is
   * written in 1 MiB system calls instead of 4 KiB ones (1.6 GB for a 1000-body tree) */
  if ((f->buf = malloc((size_t)1 << 20))) setvbuf(f->f, f->buf, _IOFBF, (size_t)1 << 20);
  return f->f;
}

int mbg_outset_stamp(mbg_outset *s, FILE *stream) {
  for (int k = 0; k < s->nfiles; k++) {
    mbg_outset_file *f = &s->files[k];
    if (f->f != stream) continue;
    if (f->nstamps == f->capstamps) {
      int cap = f->capstamps ? 2 * f->capstamps : 4;
      off_t *p = realloc(f->stamps, (size_t)cap * sizeof *p);
      if (!p) return -1;
      f->stamps = p, f->capstamps = cap;
    }
    off_t at = ftello(stream);
    if (at < 0 || fputs(PLACEHOLDER, stream) == EOF) return -1;
    f->stamps[f->nstamps++] = at;
    return 0;
  }
  return -1;
}

/* The set's identifier: a 64-bit hash of every file (its index, length and bytes), of which
 * the placeholders write 48 bits. Not cryptographic: it tells sets apart, it does not
 * authenticate them. Returns 0 or -1 (errno). */
static int set_hash(mbg_outset *s, uint64_t *hash) {
  enum { CHUNK = 1 << 20 };
  unsigned char *buf = malloc(CHUNK);
  uint64_t h = 0x6a09e667f3bcc908u;
  if (!buf) return -1;
  for (int k = 0; k < s->nfiles; k++) {
    int fd = fileno(s->files[k].f);
    off_t at = 0;
    ssize_t n;
    while ((n = pread(fd, buf, CHUNK, at)) > 0) { /* whole chunks but the last: multiples of 8 */
      size_t i = 0;
      for (; i + 8 <= (size_t)n; i += 8) {
        uint64_t w;
        memcpy(&w, buf + i, 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15u, h ^= h >> 29;
      }
      for (; i < (size_t)n; i++) h = (h ^ buf[i]) * 0x100000001b3u, h ^= h >> 31;
      at += n;
    }
    if (n < 0) return free(buf), -1;
    h = (h ^ (uint64_t)at ^ ((uint64_t)k << 56)) * 0xff51afd7ed558ccdu, h ^= h >> 33;
  }
  free(buf);
  *hash = h;
  return 0;
}

/* The staged file fd has the bytes of `name` in dir (a regular file of `size` bytes). */
static int same_bytes(mbg_outset *s, int fd, const char *name, off_t size) {
  enum { CHUNK = 1 << 16 };
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size != size) return 0;
  int old = openat(s->dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  char *a = malloc(CHUNK), *b = malloc(CHUNK);
  int same = old >= 0 && a && b;
  for (off_t at = 0; same && at < size;) {
    ssize_t n = pread(fd, a, CHUNK, at);
    same = n > 0 && pread(old, b, (size_t)n, at) == n && memcmp(a, b, (size_t)n) == 0;
    at += n > 0 ? n : 0;
  }
  if (old >= 0) close(old);
  free(a), free(b);
  return same;
}

/* Flush, stamp, mode and owner, fsync and close every file. Returns 0, or -1 with a message. */
static int finish_files(mbg_outset *s) {
  const char *h = hook();
  for (int k = 0; k < s->nfiles; k++) {
    mbg_outset_file *f = &s->files[k];
    int failed = fflush(f->f) != 0 || ferror(f->f);
    if (!failed && strncmp(h, "enospc:", 7) == 0 && strcmp(h + 7, f->name) == 0)
      failed = 1, errno = ENOSPC;
    if (failed)
      return fprintf(s->err, "%s/%s: error: cannot write: %s\n", s->dir, f->name, strerror(errno)),
             -1;
  }
  uint64_t id = 0;
  int stamped = 0;
  for (int k = 0; k < s->nfiles; k++) stamped |= s->files[k].nstamps > 0;
  if (stamped && set_hash(s, &id) != 0)
    return fprintf(s->err, "%s: error: cannot read back: %s\n", s->dir, strerror(errno)), -1;
  char text[sizeof PLACEHOLDER];
  snprintf(text, sizeof text, "0x%012llx", (unsigned long long)(id & 0xffffffffffffu));
  for (int k = 0; k < s->nfiles; k++) {
    mbg_outset_file *f = &s->files[k];
    int fd = fileno(f->f), failed = 0;
    for (int j = 0; j < f->nstamps && !failed; j++)
      failed = pwrite(fd, text, sizeof text - 1, f->stamps[j]) != (ssize_t)(sizeof text - 1);
    struct stat st;
    int exists;
    if (!replaceable(s, f->name, &st, &exists)) return -1;
    if (!failed && exists && same_bytes(s, fd, f->name, st.st_size)) {
      f->same = 1; /* left as it is: dropped from the set */
      fclose(f->f);
      f->f = NULL;
      free(f->buf);
      f->buf = NULL;
      unlinkat(s->stagefd, f->name, 0);
      continue;
    }
    if (exists) { /* the replaced file's mode and owner (the owner where we may) */
      failed |= fchmod(fd, st.st_mode & 0777) != 0;
      if (st.st_uid != geteuid() || st.st_gid != getegid())
        if (fchown(fd, st.st_uid, st.st_gid) != 0) { /* not allowed: keep ours */
        }
    }
    failed |= fsync(fd) != 0 && errno != EINVAL && errno != EROFS;
    failed |= fclose(f->f) != 0;
    f->f = NULL;
    free(f->buf);
    f->buf = NULL;
    if (failed)
      return fprintf(s->err, "%s/%s: error: cannot write: %s\n", s->dir, f->name, strerror(errno)),
             -1;
  }
  return 0;
}

/* The manifest, fsync'ed, and the staging directory fsync'ed: the commit point. */
static int write_manifest(mbg_outset *s) {
  int fd = openat(s->stagefd, MANIFEST ".tmp", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  int failed = fd < 0;
  for (int k = 0; k < s->nfiles && !failed; k++) {
    if (s->files[k].same) continue;
    size_t n = strlen(s->files[k].name);
    failed = write(fd, s->files[k].name, n) != (ssize_t)n || write(fd, "\n", 1) != 1;
  }
  failed = failed || fsync(fd) != 0;
  if (fd >= 0) failed |= close(fd) != 0;
  failed = failed || renameat(s->stagefd, MANIFEST ".tmp", s->stagefd, MANIFEST) != 0 ||
           fsync(s->stagefd) != 0;
  if (failed)
    fprintf(s->err, "%s: error: cannot write the manifest: %s\n", s->dir, strerror(errno));
  return failed ? -1 : 0;
}

int mbg_outset_commit(mbg_outset *s) {
  if (finish_files(s) != 0) return mbg_outset_abort(s), -1;
  hook_stop("stop:written");
  if (write_manifest(s) != 0) return mbg_outset_abort(s), -1;
  hook_stop("stop:staged");
  const char *h = hook();
  for (int k = 0; k < s->nfiles; k++) {
    if (s->files[k].same) continue;
    if (renameat(s->stagefd, s->files[k].name, s->dirfd, s->files[k].name) != 0) {
      fprintf(s->err,
              "%s/%s: error: cannot rename into place: %s (the next mbdc run into %s "
              "finishes replacing the set)\n",
              s->dir, s->files[k].name, strerror(errno), s->dir);
      close(s->stagefd), close(s->dirfd); /* the staging directory stays, with its manifest */
      s->stagefd = s->dirfd = -1;
      s->stage[0] = '\0';
      mbg_outset_abort(s);
      return -1;
    }
    char step[32];
    snprintf(step, sizeof step, "stop:renamed:%d", k + 1);
    if (strcmp(h, step) == 0) hook_stop(step);
  }
  fsync(s->dirfd);
  unlinkat(s->stagefd, MANIFEST, 0);
  mbg_outset_abort(s); /* the staging directory, empty now */
  return 0;
}

void mbg_outset_abort(mbg_outset *s) {
  for (int k = 0; k < s->nfiles; k++) {
    mbg_outset_file *f = &s->files[k];
    if (f->f) fclose(f->f);
    free(f->buf);
    free(f->stamps);
    free(f->name);
  }
  if (s->stagefd >= 0) close(s->stagefd);
  if (s->dirfd >= 0) {
    if (s->stage[0]) remove_stage(s->dirfd, s->stage);
    close(s->dirfd); /* and the lock with it */
  }
  free(s->dir);
  FILE *err = s->err;
  memset(s, 0, sizeof *s);
  s->dirfd = s->stagefd = -1;
  s->err = err;
}
