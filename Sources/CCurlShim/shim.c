// dlopen/dlsym of libcurl's C API, and typed wrappers of its variadic calls (see CCurlShim.h).
#include "CCurlShim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef void *(*easy_init_f)(void);
typedef void (*easy_cleanup_f)(void *);
typedef void (*easy_reset_f)(void *);
typedef int (*easy_perform_f)(void *);
typedef const char *(*easy_strerror_f)(int);
typedef int (*easy_setopt_f)(void *, int, ...);
typedef int (*easy_getinfo_f)(void *, int, ...);
typedef void *(*slist_append_f)(void *, const char *);
typedef void (*slist_free_all_f)(void *);
typedef int (*global_init_f)(long);

static struct {
    easy_init_f easy_init;
    easy_cleanup_f easy_cleanup;
    easy_reset_f easy_reset;
    easy_perform_f easy_perform;
    easy_strerror_f easy_strerror;
    easy_setopt_f easy_setopt;
    easy_getinfo_f easy_getinfo;
    slist_append_f slist_append;
    slist_free_all_f slist_free_all;
} curl;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded = 0;
static char failure[256] = "";

static void *symbol(void *library, const char *name) {
    void *found = dlsym(library, name);
    if (!found && failure[0] == 0) snprintf(failure, sizeof failure, "libcurl has no %s", name);
    return found;
}

static void load(void) {
    // RTLD_LOCAL: libcurl's OpenSSL never interposes on anything of ours. Never closed: its threads and
    // connections live as long as the process.
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
#ifdef __APPLE__
    if (!library) library = dlopen("libcurl.4.dylib", RTLD_NOW | RTLD_LOCAL);
#endif
    if (!library) {
        const char *reason = dlerror();
        snprintf(failure, sizeof failure, "%s", reason ? reason : "libcurl.so.4 not found");
        return;
    }
    curl.easy_init = (easy_init_f)symbol(library, "curl_easy_init");
    curl.easy_cleanup = (easy_cleanup_f)symbol(library, "curl_easy_cleanup");
    curl.easy_reset = (easy_reset_f)symbol(library, "curl_easy_reset");
    curl.easy_perform = (easy_perform_f)symbol(library, "curl_easy_perform");
    curl.easy_strerror = (easy_strerror_f)symbol(library, "curl_easy_strerror");
    curl.easy_setopt = (easy_setopt_f)symbol(library, "curl_easy_setopt");
    curl.easy_getinfo = (easy_getinfo_f)symbol(library, "curl_easy_getinfo");
    curl.slist_append = (slist_append_f)symbol(library, "curl_slist_append");
    curl.slist_free_all = (slist_free_all_f)symbol(library, "curl_slist_free_all");
    global_init_f global_init = (global_init_f)symbol(library, "curl_global_init");
    if (failure[0] != 0 || !global_init) return;
    // CURL_GLOBAL_DEFAULT (SSL | WIN32): once, before any handle, as libcurl requires.
    if (global_init(3L) != 0) {
        snprintf(failure, sizeof failure, "curl_global_init failed");
        return;
    }
    loaded = 1;
}

int ccurl_load(char *reason, size_t reasonSize) {
    pthread_once(&once, load);
    if (!loaded && reason && reasonSize > 0) snprintf(reason, reasonSize, "%s", failure);
    return loaded;
}

// Every call below is made only after ccurl_load answered 1.
void *ccurl_easy_init(void) { return loaded ? curl.easy_init() : NULL; }
void ccurl_easy_cleanup(void *handle) { if (loaded && handle) curl.easy_cleanup(handle); }
void ccurl_easy_reset(void *handle) { if (loaded && handle) curl.easy_reset(handle); }
int ccurl_easy_perform(void *handle) { return loaded ? curl.easy_perform(handle) : 2; }
const char *ccurl_easy_strerror(int code) { return loaded ? curl.easy_strerror(code) : "libcurl is not loaded"; }

int ccurl_setopt_long(void *handle, int option, long value) { return curl.easy_setopt(handle, option, value); }
int ccurl_setopt_pointer(void *handle, int option, const void *value) { return curl.easy_setopt(handle, option, value); }
int ccurl_setopt_offset(void *handle, int option, int64_t value) { return curl.easy_setopt(handle, option, (int64_t)value); }
int ccurl_setopt_data_callback(void *handle, int option, ccurl_data_callback callback) { return curl.easy_setopt(handle, option, callback); }
int ccurl_setopt_progress_callback(void *handle, int option, ccurl_progress_callback callback) { return curl.easy_setopt(handle, option, callback); }

int ccurl_getinfo_long(void *handle, int info, long *value) { return curl.easy_getinfo(handle, info, value); }
int ccurl_getinfo_offset(void *handle, int info, int64_t *value) { return curl.easy_getinfo(handle, info, value); }

void *ccurl_slist_append(void *list, const char *text) { return loaded ? curl.slist_append(list, text) : NULL; }
void ccurl_slist_free_all(void *list) { if (loaded && list) curl.slist_free_all(list); }
