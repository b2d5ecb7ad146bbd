#include "docket_exec.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <mbedtls/asn1.h>
#include <mbedtls/x509_crt.h>

int docket_tls_check_ip(const unsigned char *der, size_t length, const char *ca_file, const char *ca_path, const char *ip,
                        char *reason, size_t reason_size) {
    unsigned char address[16];
    size_t address_length = 0;
    if (inet_pton(AF_INET, ip, address) == 1) address_length = 4;
    else if (inet_pton(AF_INET6, ip, address) == 1) address_length = 16;
    else { snprintf(reason, reason_size, "%s is not an IP address", ip); return -1; }

    mbedtls_x509_crt certificate, authorities;
    mbedtls_x509_crt_init(&certificate);
    mbedtls_x509_crt_init(&authorities);
    int result = -1;
    if (mbedtls_x509_crt_parse_der(&certificate, der, length) != 0) {
        snprintf(reason, reason_size, "the server's certificate could not be read");
        goto done;
    }
    int loaded = 0;
    if (ca_file && mbedtls_x509_crt_parse_file(&authorities, ca_file) >= 0) loaded = 1;
    if (ca_path && mbedtls_x509_crt_parse_path(&authorities, ca_path) >= 0) loaded = 1;
    if (!ca_file && !ca_path && mbedtls_x509_crt_parse_file(&authorities, "/etc/ssl/certs/ca-certificates.crt") >= 0) loaded = 1;
    if (!loaded) {
        snprintf(reason, reason_size, "the trusted certificates could not be read");
        goto done;
    }
    uint32_t flags = 0;
    if (mbedtls_x509_crt_verify(&certificate, &authorities, NULL, NULL, &flags, NULL, NULL) != 0) {
        char info[256];
        mbedtls_x509_crt_verify_info(info, sizeof info, "", flags);
        size_t n = strlen(info);
        while (n > 0 && info[n - 1] == '\n') info[--n] = '\0';
        snprintf(reason, reason_size, "%s", n ? info : "no trusted authority signed it");
        goto done;
    }
    /* iPAddress is [7] in GeneralName; mbedTLS 2.28 keeps each SAN entry's tag and raw bytes. */
    for (const mbedtls_x509_sequence *name = &certificate.subject_alt_names; name; name = name->next) {
        if (name->buf.tag == (MBEDTLS_ASN1_CONTEXT_SPECIFIC | 7) && name->buf.len == address_length
            && memcmp(name->buf.p, address, address_length) == 0) {
            result = 0;
            goto done;
        }
    }
    snprintf(reason, reason_size, "the certificate does not name the address %s", ip);
done:
    mbedtls_x509_crt_free(&certificate);
    mbedtls_x509_crt_free(&authorities);
    return result;
}
