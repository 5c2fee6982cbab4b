FROM python:3.11-slim
WORKDIR /app
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
