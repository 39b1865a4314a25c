# frozen_string_literal: true

source "https://rubygems.org"

ruby "~> 3.2"

gem "sinatra", "~> 4.0"
gem "pg", "~> 1.5"
gem "puma", "~> 6.4"
