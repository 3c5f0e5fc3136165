#include <curl/curl.h>

// curl_easy_setopt / curl_easy_getinfo are variadic, which Swift cannot call:
// one typed wrapper per argument kind.
static inline CURLcode quire_curl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode quire_curl_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode quire_curl_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode quire_curl_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode quire_curl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode quire_curl_setopt_write(CURL *h, curl_write_callback f) { return curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, f); }
static inline CURLcode quire_curl_setopt_read(CURL *h, curl_read_callback f) { return curl_easy_setopt(h, CURLOPT_READFUNCTION, f); }
static inline CURLcode quire_curl_setopt_header(CURL *h, curl_write_callback f) { return curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, f); }
static inline CURLcode quire_curl_setopt_seek(CURL *h, curl_seek_callback f) { return curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, f); }
static inline CURLcode quire_curl_setopt_xferinfo(CURL *h, curl_xferinfo_callback f) { return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, f); }
static inline CURLcode quire_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode quire_curl_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }

// Macros with casts do not import.
static const long QUIRE_CURLAUTH_BASIC = CURLAUTH_BASIC;
static const long QUIRE_CURLAUTH_DIGEST = CURLAUTH_DIGEST;
static const long QUIRE_CURL_NETRC_OPTIONAL = CURL_NETRC_OPTIONAL;
static const long QUIRE_CURL_GLOBAL_DEFAULT = CURL_GLOBAL_DEFAULT;
static const size_t QUIRE_CURL_READFUNC_ABORT = CURL_READFUNC_ABORT;
static const int QUIRE_CURL_SEEKFUNC_OK = CURL_SEEKFUNC_OK;
static const int QUIRE_CURL_SEEKFUNC_CANTSEEK = CURL_SEEKFUNC_CANTSEEK;
