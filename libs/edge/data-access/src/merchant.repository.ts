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

  async update(id: string, changes: Partial<Omit<MerchantEntity, 'id' | 'createdAt' | 'updatedAt'>>): Promise<boolean> {
    const result = await this.repository.update({ id }, changes);
    return (result.affected ?? 0) > 0;
  }
}
