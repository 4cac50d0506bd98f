#!/usr/bin/env node
/** The `biogate` executable. */
import { main } from './main.js';

void main(process.argv.slice(2));
