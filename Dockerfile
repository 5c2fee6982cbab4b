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
COPY alembic.ini ./
ENV SUPALITE_HOST=0.0.0.0 SUPALITE_PROJECT_DIR=/app
EXPOSE 8000
CMD ["supalite", "serve"]
