import Ajv from "ajv";
import addFormats from "ajv-formats";
import { fromAjvError } from "./errors.ts";

type Definition = { components?: { schemas?: Record<string, object> } };

/**
 * Validates values against the (dereferenced) component schemas of the OpenAPI document, for inputs that
 * reach us encoded: JSON in query parameters (GET analyses, property filters). Compiled once per schema.
 */
export function createSchemaValidator(definition: Definition) {
  const ajv = new Ajv.default({ strict: false, allErrors: false, coerceTypes: false });
  addFormats.default(ajv, ["date-time", "date", "email", "uuid", "uri"]);
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
  return {
    /** Throws the API's 400 naming the first bad field (prefixed with `root`, e.g. the query parameter). */
    assert(schemaName: string, value: unknown, root?: string): void {
      let validate = compiled.get(schemaName);
      if (!validate) {
        const schema = definition.components?.schemas?.[schemaName];
        if (!schema) throw new Error(`no schema ${schemaName} in the OpenAPI document`);
        validate = ajv.compile(schema);
        compiled.set(schemaName, validate);
      }
      if (!validate(value)) throw fromAjvError(validate.errors![0]!, root);
    },
  };
}

export type SchemaValidator = ReturnType<typeof createSchemaValidator>;
