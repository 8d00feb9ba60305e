# syntax=docker/dockerfile:1
# PARoG-Go: one static parog binary on an empty, non-root base image.
#
#   docker build -t parog .
#   docker run --rm -p 8080:8080 -e PAROG_API_KEYS=change-me parog
#
# The default command serves the embedded demo KG on all interfaces; off
# loopback the server requires API keys (PAROG_API_KEYS here). Mount a
# config and pass --config to point it at Virtuoso, Redis and the models
# (configs/deploy/compose.yaml wires the whole stack).

# GO_VERSION is the Go toolchain of the build stage.
ARG GO_VERSION=1.26.8

FROM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
# Modules first, so a source change does not download them again.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# CGO off: a static binary that needs no libc in the final image.
# nomsgpack: gin without its MessagePack codec, as the Makefile's TAGS.
RUN CGO_ENABLED=0 go build -tags nomsgpack -trimpath -buildvcs=false -ldflags="-s -w" -o /out/parog ./cmd/parog \
 && mkdir -p /out/data /out/etc \
 && echo "parog:x:65532:65532:parog:/data:/sbin/nologin" > /out/etc/passwd \
 && echo "parog:x:65532:" > /out/etc/group

FROM scratch
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/etc/passwd /out/etc/group /etc/
COPY --from=build --chown=65532:65532 /out/data /data
COPY --from=build /out/parog /usr/local/bin/parog
COPY configs/ /etc/parog/
USER 65532:65532
WORKDIR /data
ENV PAROG_SERVER_API_KEYS_ENV=PAROG_API_KEYS
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/parog"]
CMD ["serve", "--config", "/etc/parog/demo.yaml", "--addr", "0.0.0.0:8080"]
