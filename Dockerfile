# The web app, built as `make web` builds it: the lock file's exact tree, then `npm run build`
# (types, vite, the bundle budget). Only its web/dist goes into the image.
FROM node:20-slim AS web
WORKDIR /web
COPY web/package.json web/package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error
# The build's sources: the Makefile's WEB_SOURCES (never a host's node_modules or dist).
COPY web/index.html web/vite.config.ts web/tsconfig.json ./
COPY web/src ./src
COPY web/public ./public
COPY web/scripts ./scripts
RUN npm run build

FROM python:3.11-slim
WORKDIR /app
# libcairo2: cairosvg draws the SVG sources of /render/image with it.
RUN apt-get update && apt-get install -y --no-install-recommends libcairo2 && rm -rf /var/lib/apt/lists/*
COPY pyproject.toml README.md ./
COPY server ./server
RUN pip install --no-cache-dir .
COPY migrations ./migrations
COPY policies ./policies
COPY storage ./storage
COPY mail ./mail
COPY alembic.ini ./
# The server serves $SUPALITE_PROJECT_DIR/web/dist at `/`.
COPY --from=web /web/dist ./web/dist
ENV SUPALITE_HOST=0.0.0.0 SUPALITE_PROJECT_DIR=/app
EXPOSE 8000
CMD ["supalite", "serve"]
