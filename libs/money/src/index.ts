import { Module } from '@nestjs/common';
import Decimal from 'decimal.js';
@Module({})
export class X {}
export const d = new Decimal('0.1').plus('0.2').toString();
