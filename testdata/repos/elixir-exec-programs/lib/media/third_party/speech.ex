defmodule Media.ThirdParty.Speech do
  # The application's own integration with a speech service: its module
  # namespace says third_party, the code is the application's.
  def to_mp3(pcm, mp3) do
    System.cmd(
      "sox",
      [pcm, mp3]
    )
  end
end
