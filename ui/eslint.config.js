import js from "@eslint/js";
import tseslint from "typescript-eslint";
import globals from "globals";

export default tseslint.config(
  { ignores: ["dist/", "src/bindings/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      // User data is rendered as text only: no HTML sinks.
      "no-restricted-properties": [
        "error",
        { property: "innerHTML", message: "Render text with the dom helpers; never parse strings as HTML." },
        { property: "outerHTML", message: "Render text with the dom helpers; never parse strings as HTML." },
      ],
      "no-restricted-syntax": [
        "error",
        { selector: "CallExpression[callee.property.name='insertAdjacentHTML']", message: "No HTML sinks." },
      ],
    },
  },
);
