import type { FlagInfo } from './args.ts';
import type { CommandSpec } from './command.ts';

/** `dpone NAME --help`: the usage line, what it does, every flag it parses (described where known), one example. */
export function commandHelp(name: string, spec: CommandSpec, flags: readonly FlagInfo[]): string {
  const help = spec.help;
  const shown = flags.map((flag) => ({
    text: `--${flag.name}${flag.takesValue ? ' VALUE' : ''}${flag.repeatable ? ' (repeatable)' : ''}`,
    what: help?.flags?.[flag.name] ?? '',
  }));
  const width = Math.max(0, ...shown.map((flag) => flag.text.length));
  return [
    `usage: dpone ${name}${help?.args ? ` ${help.args}` : ''}${flags.length > 0 ? ' [flags]' : ''}`,
    '',
    spec.summary,
    '',
    ...(shown.length > 0
      ? ['flags:', ...shown.map((flag) => `  ${flag.text.padEnd(width)}  ${flag.what}`.trimEnd()), '']
      : []),
    ...(help ? ['example:', `  ${help.example}`, ''] : []),
  ].join('\n');
}
