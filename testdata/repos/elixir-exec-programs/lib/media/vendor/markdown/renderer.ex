defmodule Media.Vendor.Markdown.Renderer do
  # Copied from another project, with its license beside it.
  def render(path), do: System.cmd("pandoc", [path])
end
