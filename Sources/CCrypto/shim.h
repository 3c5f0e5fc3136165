// libcrypto (OpenSSL 3) where its code for this CPU is the fastest there is: SHA-256 (the
// SHA extensions, about 1.4 GB/s here, ten times a portable implementation) and the
// ChaCha20-Poly1305 under an attachment's secretstream chunks (`SecretStreamPull`).
#include <openssl/evp.h>
