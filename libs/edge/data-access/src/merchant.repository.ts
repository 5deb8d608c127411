import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { MerchantEntity } from './merchant.entity';

/** Merchant profiles in the edge's schema. */
@Injectable()
export class MerchantRepository {
  private readonly repository: Repository<MerchantEntity>;

  constructor(@InjectDataSource('edge') dataSource: DataSource) {
    this.repository = dataSource.getRepository(MerchantEntity);
  }

  static over(dataSource: DataSource): MerchantRepository {
    return new MerchantRepository(dataSource);
  }

  findById(id: string): Promise<MerchantEntity | null> {
    return this.repository.findOneBy({ id });
  }

  list(): Promise<MerchantEntity[]> {
    return this.repository.find({ order: { id: 'ASC' } });
  }

  count(): Promise<number> {
    return this.repository.count();
  }

  async insert(merchant: Omit<MerchantEntity, 'createdAt' | 'updatedAt'>): Promise<void> {
    await this.repository.insert(merchant);
  }

  /**
   * Replaces one stored password hash by another of the same password (a re-hash under the current
   * pepper), only if it is still the one that was verified: a rotation or another replica's
   * re-hash meanwhile wins. True if this call replaced it.
   */
  async replacePasswordHash(id: string, which: 'passwordHash' | 'previousPasswordHash', verified: string, rehashed: string): Promise<boolean> {
    const result = await this.repository.update({ id, [which]: verified }, { [which]: rehashed });
    return (result.affected ?? 0) > 0;
  }

  /** Every merchant's stored password hashes, for counting the peppers they name. */
  passwordHashes(): Promise<Pick<MerchantEntity, 'id' | 'passwordHash' | 'previousPasswordHash' | 'previousPasswordExpiresAt'>[]> {
    return this.repository.find({
      select: { id: true, passwordHash: true, previousPasswordHash: true, previousPasswordExpiresAt: true },
      order: { id: 'ASC' },
    });
  }

  async update(id: string, changes: Partial<Omit<MerchantEntity, 'id' | 'createdAt' | 'updatedAt'>>): Promise<boolean> {
    const result = await this.repository.update({ id }, changes);
    return (result.affected ?? 0) > 0;
  }
}
