# One image recipe for every part of the workspace. PACKAGE names the workspace package
# (@smsgw/auth, @smsgw/api-gateway, …, @smsgw/smsc for the simulator, @smsgw/kit for migrations)
# and ENTRY its script; docker-compose.yml and k8s/ pass both.
# The base image: a Node.js LTS line that still gets security fixes (22 until 2027-04).
ARG NODE_VERSION=22

FROM node:${NODE_VERSION}-bookworm-slim AS build
RUN npm install -g pnpm@10.34.9
WORKDIR /src
COPY pnpm-lock.yaml pnpm-workspace.yaml package.json ./
COPY packages/contracts/package.json packages/contracts/
COPY packages/kit/package.json packages/kit/
COPY packages/smsc/package.json packages/smsc/
COPY packages/store/package.json packages/store/
COPY packages/routing/package.json packages/routing/
COPY packages/message-log/package.json packages/message-log/
COPY packages/acceptance/package.json packages/acceptance/
COPY packages/console-session/package.json packages/console-session/
COPY services/auth/package.json services/auth/
COPY services/api-gateway/package.json services/api-gateway/
COPY services/dispatcher/package.json services/dispatcher/
COPY services/batch-scheduler/package.json services/batch-scheduler/
COPY services/callback-notifier/package.json services/callback-notifier/
COPY services/smpp-server/package.json services/smpp-server/
COPY apps/standalone/package.json apps/standalone/
COPY apps/cli/package.json apps/cli/
COPY apps/console/package.json apps/console/
RUN pnpm install --frozen-lockfile
COPY . .
RUN pnpm run build
ARG PACKAGE=@smsgw/standalone
# A self-contained copy of one package with its production dependencies only.
RUN pnpm --filter "${PACKAGE}" deploy --legacy --prod /out

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=node:node /out /app
# The web console's build, which api-gateway serves at /console/ (CONSOLE_DIR; docs/console.md).
COPY --from=build --chown=node:node /src/apps/console/dist /app/console
USER node
ARG ENTRY=dist/main.js
ENV ENTRY=${ENTRY}
# Services answer /healthz on PORT, the simulator on SIM_HTTP_PORT (no curl in the slim image).
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.PORT || process.env.SIM_HTTP_PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
CMD ["sh", "-c", "exec node \"$ENTRY\""]
