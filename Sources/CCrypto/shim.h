// libcrypto (OpenSSL 3) for SHA-256 alone: its EVP digest uses the CPU's SHA extensions
// (about 1.4 GB/s here, ten times a portable implementation).
#include <openssl/evp.h>
