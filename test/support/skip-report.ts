import type { TestProject } from 'vitest/node';

// The run's own global setup (every run, whichever projects it runs): when the run ends, it says which
// tests were skipped for a reason the machine lacks (a test skipped by `ctx.skip(note)`), why, and how to
// get it, in plain lines after the summary, whatever reporters the command line chose. A skip without a
// note (`it.skip` while writing a test) is only counted by the reporters, as before.

export default function setup(project: TestProject) {
  return () => {
    const notes = new Map<string, Map<string, number>>();
    for (const module of project.vitest.state.getTestModules()) {
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state !== 'skipped' || !result.note) continue;
        const files = notes.get(result.note) ?? new Map<string, number>();
        files.set(module.relativeModuleId, (files.get(module.relativeModuleId) ?? 0) + 1);
        notes.set(result.note, files);
      }
    }
    for (const [note, files] of notes) {
      const count = [...files.values()].reduce((a, b) => a + b, 0);
      const lines = [...files].map(([file, n]) => `  ${file} (${n})`);
      project.vitest.logger.log(`\nSKIPPED ${count} test${count === 1 ? '' : 's'}: ${note}\n${lines.join('\n')}`);
    }
  };
}
