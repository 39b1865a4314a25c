#!/bin/sh
exec /opt/web/Web "$@"
