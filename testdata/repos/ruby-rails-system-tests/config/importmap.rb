# Pin npm packages by running ./bin/importmap

pin "application", preload: true
pin "@hotwired/turbo-rails", to: "turbo.min.js", preload: true
pin "trix", to: "https://ga.jspm.io/npm:trix@2.0.4/dist/trix.esm.min.js"
pin "select2", to: 'https://cdn.jsdelivr.net/npm/select2@4.0.13/dist/js/select2.min.js'
pin "legacy" # to: "https://cdn.old.example.com/legacy.js"
pin_all_from "app/javascript/controllers", under: "controllers"
