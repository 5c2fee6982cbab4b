# The web app, built as `make web` builds it: the lock file's exact tree, then `npm run build`
# (types, vite, the bundle budget). Only its dist goes into the image.
FROM node:20-slim AS web
WORKDIR /web
COPY learning/web/package.json learning/web/package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error
# The build's sources: the Makefile's WEB_SOURCES (never a host's node_modules or dist).
COPY learning/web/index.html learning/web/vite.config.ts learning/web/tsconfig.json ./
COPY learning/web/src ./src
COPY learning/web/public ./public
COPY learning/web/scripts ./scripts
RUN npm run build

FROM python:3.11-slim
WORKDIR /app
# libcairo2: cairosvg draws the SVG sources of /render/image with it.
RUN apt-get update && apt-get install -y --no-install-recommends libcairo2 && rm -rf /var/lib/apt/lists/*
COPY pyproject.toml README.md ./
COPY server ./server
RUN pip install --no-cache-dir .
# The app supalite serves (SUPALITE_PROJECT_DIR): the learning site, without its demo seed.
COPY learning/migrations ./learning/migrations
COPY learning/policies ./learning/policies
COPY learning/storage ./learning/storage
COPY learning/mail ./learning/mail
COPY learning/alembic.ini ./learning/
# The server serves $SUPALITE_PROJECT_DIR/web/dist at `/`.
COPY --from=web /web/dist ./learning/web/dist
ENV SUPALITE_HOST=0.0.0.0 SUPALITE_PROJECT_DIR=/app/learning
EXPOSE 8000
CMD ["supalite", "serve"]
