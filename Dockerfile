# syntax=docker/dockerfile:1
# loyalty-sync container image. Build: docker build -t loyalty-sync .
# scripts/replay-dockerfile.mjs replays the COPY and RUN steps of both stages without Docker (CI runs it).

# ---- build: compile TypeScript with the dev dependencies ----
# better-sqlite3 13 ships Node-API builds for linux-x64 and arm64 (glibc and musl): no compiler is needed.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY config ./config
COPY src ./src
# npm ci runs `prepare`, which compiles src/ to dist/.
RUN npm ci --no-audit --no-fund
RUN npm prune --omit=dev --no-audit --no-fund

# ---- run: production dependencies and compiled code only ----
FROM node:24-bookworm-slim
# glibc's allocator, tuned for a long-lived `run` (README, "Memory of a long-lived run"): every thread
# (a sync's storage thread, an export's encoding threads, V8's compilers) would otherwise keep an arena
# of its own at its high-water mark, and multi-MB buffers freed once would move glibc's mmap threshold up
# so that later ones fragment the heap. Measured by `BENCH=soak npm run bench`, which reads these lines.
ENV NODE_ENV=production \
    LOYALTY_DB=/data/mirror.db \
    LOYALTY_EXPORT_DIR=/data/exports \
    LOYALTY_METRICS_LISTEN=0.0.0.0:9464 \
    MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/config ./config
RUN ln -s /app/dist/cli/bin.js /usr/local/bin/loyalty-sync && chmod +x /app/dist/cli/bin.js \
 && mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
# run serves /metrics, /healthz and /readyz here (LOYALTY_METRICS_LISTEN); once and the other commands ignore it.
EXPOSE 9464
# Exec form: node is PID 1 and receives SIGTERM itself (no shell in between); loyalty-sync handles it.
ENTRYPOINT ["loyalty-sync"]
CMD ["run"]
