require "test_helper"

class ApplicationSystemTestCase < ActionDispatch::SystemTestCase
  # Headless unless told otherwise: a windowed run needs a display.
  driven_by :selenium, using: ENV["SHOW_BROWSER"] ? :firefox : :headless_firefox
end
