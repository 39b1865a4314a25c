// sum(a, b): the smallest native module worth compiling, on Node-API.
#include <node_api.h>

namespace {

napi_value Sum(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value args[2];
  napi_get_cb_info(env, info, &argc, args, nullptr, nullptr);
  double a = 0, b = 0;
  if (argc < 2 || napi_get_value_double(env, args[0], &a) != napi_ok ||
      napi_get_value_double(env, args[1], &b) != napi_ok) {
    napi_throw_type_error(env, nullptr, "sum(a, b) takes two numbers");
    return nullptr;
  }
  napi_value result;
  napi_create_double(env, a + b, &result);
  return result;
}

napi_value Init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "sum", NAPI_AUTO_LENGTH, Sum, nullptr, &fn);
  napi_set_named_property(env, exports, "sum", fn);
  return exports;
}

}  // namespace

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
