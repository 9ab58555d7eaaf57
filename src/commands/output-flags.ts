/**
 * kubeadm's printer flags on `token list`, `certs check-expiration`, `config images list` and
 * `upgrade plan` (its output.PrintFlags, built on cli-runtime's): -o text|json|yaml, kyaml (from
 * kubeadm 1.35, whose cli-runtime offers it by default) and the template printers go-template,
 * go-template-file, template, templatefile, jsonpath, jsonpath-as-json, jsonpath-file (written
 * `-o jsonpath=…`), with --allow-missing-template-keys (default true) and --show-managed-fields.
 *
 * tsadm prints text, JSON, YAML and KYAML (src/yaml/kyaml.ts). It has no Go-template engine and
 * no faithful port of kubectl's JSONPath dialect (ranges, filters, literals between braces), so
 * the template formats are refused by name rather than approximated (docs/decisions.md); use
 * -o json with a JSON tool instead.
 * --allow-missing-template-keys only matters to those printers, and --show-managed-fields only to
 * objects with metadata.managedFields, which these outputs (kubeadm's output API objects) never
 * have: both are accepted and change nothing, as in kubeadm for these formats.
 */
import type { Argv } from 'yargs';
import { addFlags } from '../cli/yargs-kit.js';
import { TsadmError } from '../errors.js';

export const TEMPLATE_FORMATS = ['go-template', 'go-template-file', 'template', 'templatefile', 'jsonpath', 'jsonpath-as-json', 'jsonpath-file'] as const;

export function addTemplateFlags<T>(y: Argv<T>): Argv<T> {
  return addFlags(y, ['allow-missing-template-keys', 'show-managed-fields']);
}

/** Refuses kubeadm's template output formats with a message naming the value given. */
export function refuseTemplateFormat(output: string): void {
  const name = output.split('=')[0] ?? output;
  if (!(TEMPLATE_FORMATS as readonly string[]).includes(name)) return;
  throw new TsadmError('E_USAGE', `output format "${output}" is not supported by tsadm: it prints text, json, yaml and kyaml, not kubeadm's ${name} printer`, {
    hint: 'use -o json and a JSON tool (for example jq) to pick fields',
  });
}
