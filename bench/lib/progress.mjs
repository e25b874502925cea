/** A progress bar on stderr; on a non-terminal stderr, one line per 10 %. */
export class Progress {
  constructor({ label, total, width = 30 }) {
    this.label = label;
    this.total = total;
    this.width = width;
    this.started = Date.now();
    this.lastDraw = 0;
    this.lastDecile = -1;
    this.tty = Boolean(process.stderr.isTTY);
  }

  update(done) {
    const fraction = this.total === 0 ? 1 : Math.min(1, done / this.total);
    const now = Date.now();
    if (this.tty) {
      if (now - this.lastDraw < 100 && fraction < 1) return;
      this.lastDraw = now;
      const filled = Math.round(fraction * this.width);
      const elapsed = (now - this.started) / 1000;
      const eta = fraction > 0 ? elapsed / fraction - elapsed : 0;
      process.stderr.write(
        `\r  ${this.label} [${'#'.repeat(filled)}${'-'.repeat(this.width - filled)}] ` +
          `${(fraction * 100).toFixed(0).padStart(3)}% ${elapsed.toFixed(1)} s` +
          (fraction < 1 ? `, ~${eta.toFixed(0)} s left ` : '           '),
      );
    } else {
      const decile = Math.floor(fraction * 10);
      if (decile === this.lastDecile) return;
      this.lastDecile = decile;
      process.stderr.write(
        `  ${this.label}: ${decile * 10}% (${((now - this.started) / 1000).toFixed(1)} s)\n`,
      );
    }
  }

  done() {
    this.update(this.total);
    if (this.tty) process.stderr.write('\n');
  }
}
