# vloki: a static binary on a distroless base, run as a non-root user.
# The build step is exactly `make build` (checked by TestDockerfile).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN make build
RUN mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /src/bin/vloki /vloki
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
EXPOSE 3100
VOLUME /data
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["/vloki", "ready"]
ENTRYPOINT ["/vloki", "-storage.path=/data"]
