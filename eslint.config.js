// ESLint for the browser modules (static/js) and their unit tests (tests/js).
// The recommended rules, plus those that catch real bugs rather than taste.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["node_modules/", "static/vendor/", ".venv/", "build/"] },
  js.configs.recommended,
  {
    files: ["static/js/**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      // The page loads Socket.IO's client as a plain script: `io` is a global.
      globals: { ...globals.browser, io: "readonly" },
    },
  },
  {
    files: ["tests/js/**/*.js", "eslint.config.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.node } },
  },
  {
    rules: {
      "no-unused-vars": ["error", { args: "after-used", argsIgnorePattern: "^_", caughtErrors: "none" }],
      eqeqeq: ["error", "always", { null: "ignore" }],
      "no-undef": "error",
      "prefer-const": "error",
      "no-shadow": "off",
      "no-implicit-globals": "error",
      "no-self-compare": "error",
      "no-unmodified-loop-condition": "error",
      "no-unreachable-loop": "error",
      "no-use-before-define": ["error", { functions: false, classes: true, variables: false }],
      "array-callback-return": "error",
      "no-constant-binary-expression": "error",
    },
  },
];
