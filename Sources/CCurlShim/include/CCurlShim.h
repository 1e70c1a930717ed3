// CCurlShim: the few libcurl calls AggregateCurl makes, opened with dlopen("libcurl.so.4") by the first request, so a
// run that sends nothing never loads libcurl and its TLS library. Our own prototypes, not curl's headers: the build
// needs no libcurl development package. curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot
// call, so each argument type gets a typed wrapper. Option and code numbers are libcurl's stable ABI (curl.h).
#ifndef CCURLSHIM_H
#define CCURLSHIM_H

#include <stddef.h>
#include <stdint.h>

/// Loads libcurl and initializes it, once per process (later calls return the first answer). Returns 1 when
/// libcurl is usable; 0 otherwise, with the reason (dlerror's text) in `reason`.
int ccurl_load(char *reason, size_t reasonSize);

void *ccurl_easy_init(void);
void ccurl_easy_cleanup(void *handle);
/// Clears every option but keeps the handle's live connections, DNS and TLS session caches for the next transfer.
void ccurl_easy_reset(void *handle);
int ccurl_easy_perform(void *handle);
const char *ccurl_easy_strerror(int code);

int ccurl_setopt_long(void *handle, int option, long value);
int ccurl_setopt_pointer(void *handle, int option, const void *value);
int ccurl_setopt_offset(void *handle, int option, int64_t value);

typedef size_t (*ccurl_data_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*ccurl_progress_callback)(void *context, int64_t downloadTotal, int64_t downloaded, int64_t uploadTotal, int64_t uploaded);
int ccurl_setopt_data_callback(void *handle, int option, ccurl_data_callback callback);
int ccurl_setopt_progress_callback(void *handle, int option, ccurl_progress_callback callback);

int ccurl_getinfo_long(void *handle, int info, long *value);
int ccurl_getinfo_offset(void *handle, int info, int64_t *value);

void *ccurl_slist_append(void *list, const char *text);
void ccurl_slist_free_all(void *list);

#endif
