/* A plain main() for the fuzz targets, so that the seed corpora and every crash ever found
 * (tests/fuzz/regressions/<target>/) run as ordinary tests under ASan + UBSan, without
 * libFuzzer. Arguments are files or directories (their regular files, in name order).
 * Prints one line per input before running it, so a crash names its input, then
 * "regressions: <program> N inputs, 0 failed". A failing input aborts with the sanitizer's
 * or the target's report and a non-zero exit status. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int inputs;

static void run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    size_t capacity = 4096, size = 0, got;
    uint8_t *data = malloc(capacity);
    while (data && (got = fread(data + size, 1, capacity - size, f)) > 0) {
        size += got;
        if (size == capacity) {
            uint8_t *grown = realloc(data, capacity *= 2);
            if (!grown) free(data);
            data = grown;
        }
    }
    fclose(f);
    if (!data) exit(2);
    printf("  %s (%zu bytes)\n", path, size);
    fflush(stdout);
    /* An exactly sized copy, as libFuzzer passes it, so reads past the end are caught. */
    uint8_t *exact = malloc(size ? size : 1);
    if (!exact) exit(2);
    memcpy(exact, data, size);
    free(data);
    LLVMFuzzerTestOneInput(exact, size);
    free(exact);
    inputs++;
}

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }

static int visible(const struct dirent *entry) { return entry->d_name[0] != '.'; }

static void run_path(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "no such input: %s\n", path);
        exit(2);
    }
    if (!S_ISDIR(st.st_mode)) {
        run_file(path);
        return;
    }
    struct dirent **entries;
    const int count = scandir(path, &entries, visible, by_name);
    for (int i = 0; i < count; i++) {
        char child[4096];
        snprintf(child, sizeof child, "%s/%s", path, entries[i]->d_name);
        if (stat(child, &st) == 0 && S_ISREG(st.st_mode)) run_file(child);
        free(entries[i]);
    }
    free(entries);
}

int main(int argc, char **argv) {
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++) run_path(argv[i]);
    printf("regressions: %s %d inputs, 0 failed\n", argv[0], inputs);
    return 0;
}
