package launch

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// A job across hosts has a secret of secretLen random bytes, which the
// launcher writes to each proxy's stdin (one line, proxyLine: never argv,
// which ps shows to every user of the host, never the ranks' environment,
// never a file) with the control address and the proxy's index.
//
// The proxy proves it knows the secret without sending it: the launcher's
// ctlHello carries a fresh nonce, and the proxy answers with the HMAC-SHA256
// under the secret of that nonce, one of its own, its index and its
// version. Someone who reads the control network learns no secret to
// replay (the next connection has another nonce), and a connection that
// cannot answer is closed before it is told anything of the job. The
// launcher proves it knows the secret in turn (its MAC over both nonces,
// in ctlJob), so a proxy started by this launcher runs nothing for another
// that took its address. The connection itself is not encrypted nor each
// frame signed: the proofs keep strangers out of the job, not a network
// that can rewrite the traffic (as ssh's own channel would; see the
// README).
const secretLen = 32

// proxyLineTag starts the stdin line.
const proxyLineTag = "hpcbench-proxy"

// maxProxyLine bounds the stdin line a proxy reads.
const maxProxyLine = 512

// newSecret returns a fresh job secret or nonce.
func newSecret() ([]byte, error) {
	b := make([]byte, secretLen)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("job secret: %w", err)
	}
	return b, nil
}

// proxyLine is what the launcher writes to proxy index's stdin.
func proxyLine(index int, addr string, secret []byte) string {
	return proxyLineTag + " " + strconv.Itoa(ctlProtocol) + " " + strconv.Itoa(index) + " " + addr + " " + hex.EncodeToString(secret) + "\n"
}

// proxyTicket is what a proxy read on its stdin.
type proxyTicket struct {
	index  int
	addr   string // host:port of the launcher's control port
	secret []byte
}

// parseProxyLine parses the line a proxy read on its stdin (without its
// newline). Its errors never quote the secret.
func parseProxyLine(line string) (proxyTicket, error) {
	f := strings.Split(line, " ")
	if len(f) != 5 || f[0] != proxyLineTag {
		return proxyTicket{}, errors.New("stdin does not start with the launcher's line (hpcbench-proxy PROTOCOL INDEX ADDR SECRET): this command is started by hpcbench launch")
	}
	if f[1] != strconv.Itoa(ctlProtocol) {
		return proxyTicket{}, fmt.Errorf("the launcher speaks control protocol %q, this proxy %d: use the same hpcbench on every host (--proxy-path)", f[1], ctlProtocol)
	}
	idx, err := strconv.Atoi(f[2])
	if err != nil || idx < 0 || idx >= MaxRanks {
		return proxyTicket{}, fmt.Errorf("proxy index %q: want 0 to %d", f[2], MaxRanks-1)
	}
	if _, _, err := net.SplitHostPort(f[3]); err != nil {
		return proxyTicket{}, fmt.Errorf("control address %q: %w", f[3], err)
	}
	secret, err := hex.DecodeString(f[4])
	if err != nil || len(secret) != secretLen {
		return proxyTicket{}, fmt.Errorf("job secret: want %d hexadecimal digits", 2*secretLen)
	}
	return proxyTicket{index: idx, addr: f[3], secret: secret}, nil
}

// proxyMAC is a proxy's proof: the launcher's nonce, its own, its index
// and its version, under the job's secret.
func proxyMAC(secret []byte, launcherNonce, proxyNonce string, index int, version string) string {
	return mac(secret, "hpcbench proxy", launcherNonce, proxyNonce, strconv.Itoa(index), version)
}

// launcherMAC is the launcher's proof to proxy index.
func launcherMAC(secret []byte, launcherNonce, proxyNonce string, index int) string {
	return mac(secret, "hpcbench launcher", proxyNonce, launcherNonce, strconv.Itoa(index))
}

// mac is the HMAC-SHA256 of parts, each length-prefixed so that no two
// lists of parts hash alike.
func mac(secret []byte, parts ...string) string {
	h := hmac.New(sha256.New, secret)
	for _, p := range parts {
		var n [4]byte
		n[0], n[1], n[2], n[3] = byte(len(p)>>24), byte(len(p)>>16), byte(len(p)>>8), byte(len(p))
		h.Write(n[:])
		h.Write([]byte(p))
	}
	return string(h.Sum(nil))
}

// sameMAC compares two proofs in constant time.
func sameMAC(a, b string) bool { return hmac.Equal([]byte(a), []byte(b)) }
