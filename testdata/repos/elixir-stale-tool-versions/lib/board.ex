defmodule Board do end
