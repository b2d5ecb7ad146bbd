/*
 * libFuzzer target for the ssh address parser (Sources/DocketCGitTransport/SSHAddress.c), built and run by
 * scripts/fuzz-address with AddressSanitizer and UndefinedBehaviorSanitizer. Besides reading and writing only what
 * is its own (the sanitizers check that), the parser must return each address whole or refused:
 *   - read: a non-empty host and path, a port from 0 to 65535, and each part a piece of the address;
 *   - refused: no part set, and a reason in words for its code;
 *   - the same answer each time.
 * Any other outcome aborts, which libFuzzer counts as a crash and saves as crash-<sha1>.
 */
#include "docket_ssh_address.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void require(int holds, const char *what, const char *address) {
    if (holds) return;
    fprintf(stderr, "fuzz-address: %s for the address \"%s\"\n", what, address);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* An address is a C string: the input up to its first NUL, in a buffer of its own length (so ASan sees an
       overread by one byte). */
    const uint8_t *nul = memchr(data, 0, size);
    size_t length = nul ? (size_t)(nul - data) : size;
    char *address = malloc(length + 1);
    if (!address) return 0;
    memcpy(address, data, length);
    address[length] = '\0';

    char *user = (char *)1, *host = (char *)1, *path = (char *)1;
    int port = -1;
    int code = docket_exec_parse_ssh_url(address, &user, &host, &port, &path);
    if (code == 0) {
        require(user && host && path, "a part is missing", address);
        require(host[0] != '\0' && path[0] != '\0', "the host or path is empty", address);
        require(port >= 0 && port <= 65535, "the port is out of range", address);
        require(strstr(address, host) != NULL, "the host is not in the address", address);
        require(strstr(address, path) != NULL, "the path is not in the address", address);
        require(user[0] == '\0' || strstr(address, user) != NULL, "the user is not in the address", address);
        require(strchr(host, '[') == NULL && strchr(host, ']') == NULL, "the host holds a bracket", address);
    } else {
        require(code < 0, "a positive code", address);
        require(!user && !host && !path, "a refused address left a part set", address);
        const char *problem = docket_ssh_address_problem(code);
        require(problem && strcmp(problem, "it could not be read") != 0, "a refusal without a reason", address);
    }
    char *again_user, *again_host, *again_path;
    int again_port;
    int again = docket_exec_parse_ssh_url(address, &again_user, &again_host, &again_port, &again_path);
    require(again == code, "a second reading gave another code", address);
    if (code == 0) {
        require(strcmp(user, again_user) == 0 && strcmp(host, again_host) == 0 && strcmp(path, again_path) == 0
                    && port == again_port,
                "a second reading gave other parts", address);
    }
    free(user); free(host); free(path);
    free(again_user); free(again_host); free(again_path);
    free(address);
    return 0;
}
