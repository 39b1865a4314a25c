{
  "targets": [
    {
      "target_name": "native_sum",
      "sources": ["src/sum.cc"]
    }
  ]
}
