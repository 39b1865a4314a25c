FROM python:3.12-alpine
RUN apk add --no-cache git openssh su-exec libc6-compat; pip install -r requirements.txt
