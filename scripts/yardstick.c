/* The C yardstick of docs/performance.md: a plain C loop playing random 打滚子 play phases.
 *
 * Three decks (card ids 0..53, counts 0..3 per seat), 6 cards to the kitty, 39 to each
 * seat; a random level rank and trump suit; class and power tables as
 * gunzi.engine.order.order_for builds them (no permanent 2s); leads are a single, pair
 * or triple drawn uniformly from the legal ones; follows are drawn uniformly from the
 * legal 死棒 follows (docs/rules.md A7), enumerated as gunzi.engine.gunzi_tricks does;
 * trick winner and points as there. No I/O in the loop; the figure is what a compiled
 * language makes of the same work, so Python figures are quoted as a ratio to it.
 *
 * Usage: yardstick SECONDS  ->  prints one JSON line with hands per CPU-second.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <time.h>

#define NT 54
#define TR 4
static int CLS[NT], POW[NT], MEM[5][NT], MLEN[5];
static int PTS[NT];
static uint64_t rs = 88172645463325252ULL;

static inline uint32_t rnd(uint32_t n) { /* xorshift64, then a multiply-shift range */
    rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17;
    return (uint32_t)(((rs >> 32) * (uint64_t)n) >> 32);
}

static void order_for(int level, int trump) {
    int p = 0, plain[13], np = 0;
    for (int r = 0; r < 13; r++) if (r != level) plain[np++] = r;
    for (int s = 0; s < 4; s++)
        for (int i = 0; i < np; i++) { int c = s * 13 + plain[i]; CLS[c] = s == trump ? TR : s; POW[c] = i; }
    p = np;
    for (int s = 0; s < 4; s++) if (s != trump) { CLS[s * 13 + level] = TR; POW[s * 13 + level] = p; }
    p++;
    CLS[trump * 13 + level] = TR; POW[trump * 13 + level] = p++;
    CLS[52] = TR; POW[52] = p++;
    CLS[53] = TR; POW[53] = p++;
    for (int k = 0; k < 5; k++) MLEN[k] = 0;
    for (int q = 0; q < p + 1; q++)  /* members weakest first: by power, then id */
        for (int c = 0; c < NT; c++) if (POW[c] == q) { int k = CLS[c]; MEM[k][MLEN[k]++] = c; }
}

/* Legal plays as up to 3 card ids each, in out[][3]; returns how many. */
static int legal(const int *h, int n, int led, int out[][3]) {
    int m = 0;
    if (n == 0) { /* lead */
        for (int c = 0; c < NT; c++) for (int j = 1; j <= h[c]; j++) { out[m][0] = out[m][1] = out[m][2] = c; m++; }
        return m;
    }
    int av[NT], ak[NT], na = 0, held = 0;
    for (int i = 0; i < MLEN[led]; i++) { int c = MEM[led][i]; if (h[c]) { av[na] = c; ak[na++] = h[c]; held += h[c]; } }
    if (n == 1) {
        if (na) { for (int i = 0; i < na; i++) out[m++][0] = av[i]; return m; }
        for (int c = 0; c < NT; c++) if (h[c]) out[m++][0] = c;
        return m;
    }
    int fixed[3], nf = 0;
    if (held < n) { /* all of the class, the rest from other classes */
        for (int i = 0; i < na; i++) for (int j = 0; j < ak[i]; j++) fixed[nf++] = av[i];
        na = 0;
        for (int c = 0; c < NT; c++) if (h[c] && CLS[c] != led) { av[na] = c; ak[na++] = h[c]; }
    } else {
        int pairs = 0, triples = 0;
        for (int i = 0; i < na; i++) { if (ak[i] == 2) pairs++; if (ak[i] == 3) triples++; }
        if (n == 2 && pairs) { for (int i = 0; i < na; i++) if (ak[i] >= 2) { out[m][0] = out[m][1] = av[i]; m++; } return m; }
        if (n == 3 && triples) { for (int i = 0; i < na; i++) if (ak[i] == 3) { out[m][0] = out[m][1] = out[m][2] = av[i]; m++; } return m; }
        if (n == 3 && pairs) {
            for (int i = 0; i < na; i++) if (ak[i] >= 2) for (int j = 0; j < na; j++) if (j != i) {
                out[m][0] = av[i]; out[m][1] = av[i]; out[m][2] = av[j]; m++; }
            return m;
        }
    }
    int k = n - nf;
    for (int i = 0; i < na; i++) { /* multisets of k cards from av */
        if (k == 1) { out[m][0] = av[i]; m++; continue; }
        if (ak[i] >= 2) {
            if (k == 2) { out[m][0] = out[m][1] = av[i]; m++; }
            else { if (ak[i] >= 3) { out[m][0] = out[m][1] = out[m][2] = av[i]; m++; }
                   for (int j = i + 1; j < na; j++) { out[m][0] = av[i]; out[m][1] = av[i]; out[m][2] = av[j]; m++; } }
        }
        for (int j = i + 1; j < na; j++) {
            if (k == 2) { out[m][0] = av[i]; out[m][1] = av[j]; m++; continue; }
            if (ak[j] >= 2) { out[m][0] = av[i]; out[m][1] = av[j]; out[m][2] = av[j]; m++; }
            for (int q = j + 1; q < na; q++) { out[m][0] = av[i]; out[m][1] = av[j]; out[m][2] = av[q]; m++; }
        }
    }
    for (int i = 0; i < m; i++) { /* prepend the forced cards */
        int t[3], x = 0;
        for (int j = 0; j < nf; j++) t[x++] = fixed[j];
        for (int j = 0; j < k; j++) t[x++] = out[i][j];
        for (int j = 0; j < n; j++) out[i][j] = t[j];
    }
    return m;
}

static int play_hand(void) {
    int H[4][NT] = {{0}}, deck[162], nd = 0;
    for (int c = 0; c < NT; c++) for (int d = 0; d < 3; d++) deck[nd++] = c;
    for (int i = nd - 1; i > 0; i--) { int j = rnd(i + 1), t = deck[i]; deck[i] = deck[j]; deck[j] = t; }
    for (int i = 0; i < 156; i++) H[i % 4][deck[i]]++;
    order_for(rnd(13), rnd(4));
    static int out[32768][3];  /* C(40,3) + pairs: the most a 39-card hand can list */
    int leader = rnd(4), pts[2] = {0, 0}, left = 39;
    while (left > 0) {
        int plays[4][3], n = 0, led = 0;
        for (int k = 0; k < 4; k++) {
            int s = (leader + k) % 4;
            int m = legal(H[s], n, led, out);
            int idx = (int)rnd((uint32_t)m), *pick = out[idx];
            plays[k][0] = pick[0]; plays[k][1] = pick[1]; plays[k][2] = pick[2];
            if (k == 0) { /* a lead's size: its position among the card's leads */
                int first = idx; while (first > 0 && out[first - 1][0] == pick[0]) first--;
                n = idx - first + 1; led = CLS[pick[0]]; }
            for (int j = 0; j < n; j++) H[s][plays[k][j]]--;
        }
        left -= n;
        int best = 0, bc = led, bp = POW[plays[0][0]], p = 0;
        for (int k = 1; k < 4; k++) {
            int f = plays[k][0], same = 1;
            for (int j = 1; j < n; j++) if (plays[k][j] != f) same = 0;
            if (!same) continue;
            if (CLS[f] == bc) { if (POW[f] > bp) { best = k; bp = POW[f]; } }
            else if (CLS[f] == TR && led != TR) { best = k; bc = TR; bp = POW[f]; }
        }
        for (int k = 0; k < 4; k++) for (int j = 0; j < n; j++) p += PTS[plays[k][j]];
        leader = (leader + best) % 4;
        pts[leader % 2] += p;
    }
    return pts[0];
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    for (int c = 0; c < 52; c++) { int r = c % 13; PTS[c] = r == 3 ? 5 : (r == 8 || r == 11) ? 10 : 0; }
    long hands = 0, check = 0;
    clock_t t0 = clock(), t1;
    do {
        for (int i = 0; i < 200; i++) { check += play_hand(); hands++; }
        t1 = clock();
    } while ((double)(t1 - t0) / CLOCKS_PER_SEC < seconds);
    double cpu = (double)(t1 - t0) / CLOCKS_PER_SEC;
    printf("{\"hands\": %ld, \"cpu_seconds\": %.3f, \"hands_per_cpu_second\": %.1f, \"checksum\": %ld}\n",
           hands, cpu, hands / cpu, check);
    return 0;
}
