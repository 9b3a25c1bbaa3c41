/* Writes one run's results as raw little-endian binary, for the native-vs-wasm determinism
 * test (tests/robustness.test.mjs):
 *
 *   build/dump_attention WEIGHTS TEXT [TEXT…] > out.bin
 *
 * Layout, one record per TEXT, back to back: int32 n, layers, heads, hidden; float32 attention
 * [layers][heads][n][n]; float32 final hidden state [n][hidden]. Exit status 1 with a message on stderr when the weights are
 * refused or the run fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn.h"

static unsigned char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f || fseek(f, 0, SEEK_END) != 0) return NULL;
    const long length = ftell(f);
    unsigned char *data = length >= 0 && fseek(f, 0, SEEK_SET) == 0 ? attn_alloc((size_t)length) : NULL;
    if (data && fread(data, 1, (size_t)length, f) != (size_t)length) {
        attn_free(data);
        data = NULL;
    }
    fclose(f);
    *size = (size_t)length;
    return data;
}

static int dump(const attn_engine *engine, const attn_session *session) {
    int32_t shape[8];
    attn_engine_shape(engine, shape);
    const int32_t header[4] = {attn_session_length(session), shape[2], shape[3], shape[1]};
    const size_t n = (size_t)header[0];
    const size_t attention = (size_t)shape[2] * (size_t)shape[3] * n * n;
    const size_t hidden = n * (size_t)shape[1];
    const int ok = fwrite(header, sizeof header, 1, stdout) == 1 &&
                   fwrite(attn_session_attention(session), sizeof(float), attention, stdout) == attention &&
                   fwrite(attn_session_hidden(session, shape[2]), sizeof(float), hidden, stdout) == hidden;
    return ok && fflush(stdout) == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fputs("usage: dump_attention WEIGHTS TEXT [TEXT…] > out.bin\n", stderr);
        return 2;
    }
    size_t size = 0;
    unsigned char *bytes = read_file(argv[1], &size);
    attn_engine *engine = NULL;
    int status = bytes ? attn_engine_create(bytes, size, &engine) : ATTN_ERR_NO_MEMORY;
    attn_session *session = status == ATTN_OK ? attn_session_create(engine) : NULL;
    int result = session ? 0 : 1;
    for (int i = 2; i < argc && result == 0; i++) {
        status = attn_session_run_text(session, argv[i], strlen(argv[i]));
        result = status == ATTN_OK ? dump(engine, session) : 1;
    }
    if (status != ATTN_OK) fprintf(stderr, "dump_attention: %s\n", attn_status_message(status));
    attn_session_destroy(session);
    attn_engine_destroy(engine);
    attn_free(bytes);
    return result;
}
